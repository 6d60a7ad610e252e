/**
 * What runs wait for: an approval of an agent's tool call, or a signal. A wait is a record in its
 * run's hash (`wait.<kind>.<key>`), listed in the run (`waits_open`: the run is `waiting` while it
 * lists any), listed in the inbox (a sorted set by when it began, in all and per pipeline), and the job
 * that waits sits in BullMQ's delayed set: nothing else is held, so a wait survives every process
 * and Redis restarting, and may last days. Answers are written before the waiting job is woken
 * (`decision.<call id>`, `signal.<name>`), so a job that wakes for any reason finds them.
 *
 * The run's own fields change in one script each (its slot); the inbox, in the shared slot, follows
 * in a second command, as the other indexes do (see run-settle.ts).
 */
import type { Redis } from 'ioredis';
import { keyspace, scriptCommand, type ScriptCommand } from '@switchyard/redis';
import type { RunEventData } from '@switchyard/contracts';
import type { RunKeys } from './keys.js';

export type WaitKind = 'approval' | 'signal';
type WaitingEvent = RunEventData['waiting'];

export interface WaitRecord {
  kind: WaitKind;
  /** The call id of an approval, the name of a signal. */
  key: string;
  run_id: string;
  pipeline: string;
  stage: string;
  created_at: string;
  /** When the wait gives up (signals; approvals wait as long as their job's delay). */
  timeout_at?: string | undefined;
  /** The waiting job, to wake it when the answer comes. */
  job: { queue: string; id: string };
  /** Approvals: the call, as the model asked for it, and the form of an answer (the tool's schema). */
  tool?: string | undefined;
  arguments?: string | undefined;
  reason?: string | null | undefined;
  /**
   * The turn whose reply holds the whole reason, when `reason` keeps only its start: a reason
   * (up to the model's reply, 256 KiB) is not copied into each of a turn's calls.
   */
  reason_turn?: number | undefined;
  parameters?: Record<string, unknown> | undefined;
  /** Signals: the payload's JSON Schema, when the step gives one. */
  schema?: Record<string, unknown> | undefined;
}

export interface ApprovalDecision {
  approve: boolean;
  /** Edited arguments, checked against the tool's schema. */
  arguments?: Record<string, unknown> | undefined;
  note?: string | undefined;
  at: string;
}

export interface SignalRecord {
  payload: unknown;
  at: string;
  idempotency_key?: string | undefined;
}

const waitField = (kind: WaitKind, key: string) => `wait.${kind}.${key}`;
/** An approval's answer, written before its job is woken. */
const decisionField = (callId: string) => `decision.${callId}`;
/**
 * A wait that has ended keeps this field, per stage (two steps may wait for one signal): the
 * stage's job run again after a crash must not wait for it again.
 */
const endedField = (kind: WaitKind, key: string, stage: string) => `waited.${kind}.${stage}.${key}`;

/** The stream length cap of the run's events, as the store's appends give it. */
const EVENTS_MAXLEN = '20000';

/**
 * KEYS: run, events. ARGV: wait field, record, now, ended field, event JSON or ''. The `pending`
 * event is written by the same script as the record, so that neither is left without the other.
 */
const PARK = `
local status = redis.call('HGET', KEYS[1], 'status')
if not status or status == 'completed' or status == 'failed' or status == 'cancelled' then return 'ended' end
if redis.call('HEXISTS', KEYS[1], ARGV[4]) == 1 then return 'resolved' end
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then return 'exists' end
local open = cjson.decode(redis.call('HGET', KEYS[1], 'waits_open') or '[]')
open[#open + 1] = ARGV[1]
redis.call('HSET', KEYS[1], 'waits_open', cjson.encode(open))
if status == 'running' or status == 'queued' then redis.call('HSET', KEYS[1], 'status', 'waiting', 'updated_at', ARGV[3]) end
if ARGV[5] ~= '' then redis.call('XADD', KEYS[2], 'MAXLEN', '~', '${EVENTS_MAXLEN}', '*', 'type', 'waiting', 'data', ARGV[5]) end
return 'parked'
`;

/** KEYS: run, events. ARGV: wait field, now, ended field, how it ended, event JSON or ''. */
const RESOLVE = `
local record = redis.call('HGET', KEYS[1], ARGV[1])
if not record then return false end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('HSET', KEYS[1], ARGV[3], ARGV[4])
local open, left = cjson.decode(redis.call('HGET', KEYS[1], 'waits_open') or '[]'), {}
for _, field in ipairs(open) do if field ~= ARGV[1] then left[#left + 1] = field end end
if #left > 0 then redis.call('HSET', KEYS[1], 'waits_open', cjson.encode(left)) else
  redis.call('HDEL', KEYS[1], 'waits_open')
  if redis.call('HGET', KEYS[1], 'status') == 'waiting' then redis.call('HSET', KEYS[1], 'status', 'running', 'updated_at', ARGV[2]) end
end
if ARGV[5] ~= '' then redis.call('XADD', KEYS[2], 'MAXLEN', '~', '${EVENTS_MAXLEN}', '*', 'type', 'waiting', 'data', ARGV[5]) end
return record
`;

export interface InboxPage {
  items: WaitRecord[];
  total: number;
}

export class RunWaits {
  readonly #redis: Redis;
  readonly #keys: RunKeys;
  readonly #inbox: string;
  readonly #park: ScriptCommand;
  readonly #resolve: ScriptCommand;

  constructor(options: { redis: Redis; keys: RunKeys; prefix: string }) {
    this.#redis = options.redis;
    this.#keys = options.keys;
    this.#inbox = `${keyspace(options.prefix).shared}:inbox`;
    this.#park = scriptCommand(options.redis, 'syWaitPark', PARK, { numberOfKeys: 2 });
    this.#resolve = scriptCommand(options.redis, 'syWaitResolve', RESOLVE, { numberOfKeys: 2 });
  }

  #member(record: Pick<WaitRecord, 'run_id' | 'kind' | 'key'>): string {
    return JSON.stringify([record.run_id, record.kind, record.key]);
  }

  /**
   * Records a wait and its `pending` event; 'exists' when it was recorded before (a job parking
   * again), 'resolved' when it was waited for and ended before (a job run again after a crash),
   * 'ended' when its run has ended.
   */
  async park(record: WaitRecord, event?: WaitingEvent): Promise<'parked' | 'exists' | 'resolved' | 'ended'> {
    const keys = [this.#keys.run(record.run_id), this.#keys.events(record.run_id)];
    const answer = (await this.#park(...keys, waitField(record.kind, record.key), JSON.stringify(record), new Date().toISOString(), endedField(record.kind, record.key, record.stage), event ? JSON.stringify(event) : '')) as 'parked' | 'exists' | 'resolved' | 'ended';
    if (answer === 'parked') {
      const at = Date.parse(record.created_at);
      await this.#redis.multi().zadd(this.#inbox, at, this.#member(record)).zadd(`${this.#inbox}:${record.pipeline}`, at, this.#member(record)).exec();
    }
    return answer;
  }

  async get(runId: string, kind: WaitKind, key: string): Promise<WaitRecord | undefined> {
    const text = await this.#redis.hget(this.#keys.run(runId), waitField(kind, key));
    return text ? (JSON.parse(text) as WaitRecord) : undefined;
  }

  /**
   * Ends a wait (answered, timed out) with its `resolved` event in the same step; the record, or
   * undefined when it had ended already. Its `outcome` is kept in the run (`waited.<kind>.<stage>.<key>`).
   */
  async resolve(runId: string, kind: WaitKind, key: string, ended: { stage: string; outcome: string; event?: WaitingEvent }): Promise<WaitRecord | undefined> {
    const keys = [this.#keys.run(runId), this.#keys.events(runId)];
    const text = (await this.#resolve(...keys, waitField(kind, key), new Date().toISOString(), endedField(kind, key, ended.stage), ended.outcome, ended.event ? JSON.stringify(ended.event) : '')) as string | null;
    if (!text) return undefined;
    const record = JSON.parse(text) as WaitRecord;
    await this.#redis.multi().zrem(this.#inbox, this.#member(record)).zrem(`${this.#inbox}:${record.pipeline}`, this.#member(record)).exec();
    return record;
  }

  /** The whole reason of an approval whose record keeps only its start (`reason_turn`): the model's reply in the run's transcript. */
  async wholeReason(record: WaitRecord): Promise<string | null> {
    if (record.reason_turn === undefined) return record.reason ?? null;
    const text = await this.#redis.hget(this.#keys.run(record.run_id), `${record.stage}.agent.turn.${record.reason_turn}`);
    const content = text ? (JSON.parse(text) as { content?: unknown }).content : undefined;
    return typeof content === 'string' ? content : (record.reason ?? null);
  }

  /** Every wait of a run still pending (to wake their jobs when it is cancelled). */
  async ofRun(runId: string): Promise<WaitRecord[]> {
    const open = await this.#redis.hget(this.#keys.run(runId), 'waits_open');
    const fields = open ? (JSON.parse(open) as string[]) : [];
    if (fields.length === 0) return [];
    const texts = await this.#redis.hmget(this.#keys.run(runId), ...fields);
    return texts.flatMap((text) => (text ? [JSON.parse(text) as WaitRecord] : []));
  }

  /** A run's waits still waiting on a person or a signal: an approval answered is not, though its job has yet to take the answer. */
  async unansweredOfRun(runId: string): Promise<WaitRecord[]> {
    const records = await this.ofRun(runId);
    const approvals = records.filter((record) => record.kind === 'approval');
    if (approvals.length === 0) return records;
    const decided = await this.#redis.hmget(this.#keys.run(runId), ...approvals.map((record) => decisionField(record.key)));
    const answered = new Set(approvals.filter((_, i) => decided[i]).map((record) => record.key));
    return records.filter((record) => record.kind !== 'approval' || !answered.has(record.key));
  }

  /** Drops a run's waits from the inbox (its run ended): their jobs find the run ended when they wake. */
  async forgetRun(runId: string): Promise<WaitRecord[]> {
    const records = await this.ofRun(runId);
    if (records.length === 0) return [];
    const multi = this.#redis.multi();
    for (const record of records) multi.zrem(this.#inbox, this.#member(record)).zrem(`${this.#inbox}:${record.pipeline}`, this.#member(record));
    await multi.exec();
    return records;
  }

  /** What waits on a person or a signal, oldest first (of one pipeline, when given). */
  async inbox(options: { pipeline?: string | undefined; offset: number; limit: number }): Promise<InboxPage> {
    const key = options.pipeline ? `${this.#inbox}:${options.pipeline}` : this.#inbox;
    const [members, total] = await Promise.all([this.#redis.zrange(key, options.offset, options.offset + options.limit - 1), this.#redis.zcard(key)]);
    const entries = members.map((member) => JSON.parse(member) as [string, WaitKind, string]);
    // A wait of a run that has ended (failed meanwhile) is not waited for any more; an approval
    // answered is not waited for on a person, though it stays listed until its job takes the answer.
    const records = await Promise.all(
      entries.map(async ([runId, kind, waitKey]): Promise<WaitRecord | 'answered' | undefined> => {
        const fields = [waitField(kind, waitKey), 'status', ...(kind === 'approval' ? [decisionField(waitKey)] : [])];
        const [text, status, decided] = await this.#redis.hmget(this.#keys.run(runId), ...fields);
        if (!text || !status || ['completed', 'failed', 'cancelled'].includes(status)) return undefined;
        return decided ? 'answered' : (JSON.parse(text) as WaitRecord);
      }),
    );
    // An entry whose record is gone (its run expired) is dropped as it is met.
    const stale = entries.filter((_, i) => !records[i]).map((entry) => JSON.stringify(entry));
    if (stale.length > 0) await this.#redis.zrem(key, ...stale);
    const answered = records.filter((r) => r === 'answered').length;
    return { items: records.filter((r): r is WaitRecord => r !== undefined && r !== 'answered'), total: total - stale.length - answered };
  }

  /** Records an approval's answer; false when one was recorded before. */
  async decide(runId: string, callId: string, decision: ApprovalDecision): Promise<boolean> {
    return (await this.#redis.hsetnx(this.#keys.run(runId), decisionField(callId), JSON.stringify(decision))) === 1;
  }

  async decision(runId: string, callId: string): Promise<ApprovalDecision | undefined> {
    const text = await this.#redis.hget(this.#keys.run(runId), decisionField(callId));
    return text ? (JSON.parse(text) as ApprovalDecision) : undefined;
  }

  /** Records a signal, kept until a step waits for it; the first of a name stands ('duplicate' after). */
  async signal(runId: string, name: string, record: SignalRecord): Promise<'recorded' | 'duplicate'> {
    return (await this.#redis.hsetnx(this.#keys.run(runId), `signal.${name}`, JSON.stringify(record))) === 1 ? 'recorded' : 'duplicate';
  }

  async signalOf(runId: string, name: string): Promise<SignalRecord | undefined> {
    const text = await this.#redis.hget(this.#keys.run(runId), `signal.${name}`);
    return text ? (JSON.parse(text) as SignalRecord) : undefined;
  }
}

/** The key an approval is answered by: the model's call id when it is plain, else one made from its place. */
export function approvalKey(callId: string, stage: string, turn: number, index: number): string {
  return CALL_ID.test(callId) ? callId : `${stage}-t${turn}c${index}`;
}

/** Call ids are the model's; bounded, and without what would need escaping in a field name. */
export const CALL_ID = /^[A-Za-z0-9_.:-]{1,256}$/;
