/**
 * An agent step's transcript, kept in its run's hash as the step goes, so that a worker taking
 * over finds every turn and every tool result recorded, and so that the run's compaction archives
 * it with the stage records (nothing to add there). Fields, under the stage's name:
 *   `<stage>.agent.model`, `.opening` (the instructions and prompt as evaluated at the start, JSON),
 *   `.turns` (turns recorded), `.turn.<n>` (the model's reply, JSON), `.result.<n>.<i>` (the result
 *   of the i-th call of turn n, JSON), `.nudge.<n>` (what the model was told after turn n),
 *   `.prompt_tokens`, `.completion_tokens`.
 * Turns are written in order by a script (turn n only after n-1, never twice); a result by a script
 * with HSETNX, so the first result of a call stands and a call whose result is recorded is never made
 * again, and with its `tool_result` event in the same call, so that neither is left without the other.
 */
import type { Redis } from 'ioredis';
import { scriptCommand, type ScriptCommand } from '@switchyard/redis';
import type { AgentMessage, AgentTranscriptView, AgentUsage, RunEventData } from '@switchyard/contracts';

export interface AgentToolCallRecord {
  id: string;
  tool: string;
  arguments: string;
}

export interface AgentTurnRecord {
  content: string | null;
  tool_calls: AgentToolCallRecord[];
  usage: AgentUsage;
  at: string;
  /** Why the reply ended, as the model said (`stop`, `tool_calls`, `length`, …). */
  finish_reason?: string | null;
  /** The reply's bound the turn sent: what was left of the step's `max_tokens` (and `max_cost`). */
  max_tokens?: number;
  /** What the turn cost in USD, when its model has prices. */
  cost_usd?: number;
  /** Which budget set `max_tokens`: the step's tokens left, its cost left, or the run's cost left (the pipeline's `max_cost`). */
  bound_by?: 'max_tokens' | 'max_cost' | 'run_max_cost';
}

export interface AgentResultRecord {
  call_id: string;
  tool: string;
  content: string;
  is_error: boolean;
  at: string;
}

export interface AgentTranscript {
  model: string | null;
  opening: { instructions: string | null; prompt: string } | null;
  turns: AgentTurnRecord[];
  /** By turn (1-based), the results of its calls by index (absent: not recorded yet). */
  results: (AgentResultRecord | undefined)[][];
  /** By turn, what the model was told after it (an answer that did not fit `output_schema`). */
  nudges: (string | undefined)[];
  usage: AgentUsage;
  /** USD the recorded turns cost (0 when the model has no prices). */
  costUsd: number;
  /** USD every agent stage of the run has cost so far, this one's included: what the run's `max_cost` bounds. */
  runCostUsd: number;
}

/** Costs are summed in Redis as whole nano-dollars: integers, so HINCRBY adds them exactly. */
const NANOS = 1_000_000_000;
export const costNanos = (usd: number | undefined) => Math.round((usd ?? 0) * NANOS);

const field = (stage: string, name: string) => `${stage}.agent.${name}`;

/**
 * Records turn n: only when n-1 are recorded and the run goes on. 'recorded' | 'exists' | 'gap' | 'ended'.
 * KEYS: run, events. ARGV: stage, n, record, prompt tokens, completion tokens, cost nanos, stream
 * cap, then the turn's events as (type, data) pairs: written with the record, so that neither is
 * left without the other.
 */
const RECORD_TURN = `
local status = redis.call('HGET', KEYS[1], 'status')
if not status or status == 'completed' or status == 'failed' or status == 'cancelled' then return 'ended' end
local n = tonumber(ARGV[2])
local have = tonumber(redis.call('HGET', KEYS[1], ARGV[1] .. '.agent.turns') or '0')
if have >= n then return 'exists' end
if have ~= n - 1 then return 'gap' end
redis.call('HSET', KEYS[1], ARGV[1] .. '.agent.turn.' .. n, ARGV[3], ARGV[1] .. '.agent.turns', n)
redis.call('HINCRBY', KEYS[1], ARGV[1] .. '.agent.prompt_tokens', ARGV[4])
redis.call('HINCRBY', KEYS[1], ARGV[1] .. '.agent.completion_tokens', ARGV[5])
if ARGV[6] ~= '0' then
  redis.call('HINCRBY', KEYS[1], ARGV[1] .. '.agent.cost_nanos', ARGV[6])
  -- The run's agents together: its max_cost, and its batch's cost once it ends (run-settle.ts).
  redis.call('HINCRBY', KEYS[1], 'cost_nanos', ARGV[6])
end
for i = 8, #ARGV - 1, 2 do redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[7], '*', 'type', ARGV[i], 'data', ARGV[i + 1]) end
return 'recorded'
`;

/**
 * KEYS: run, events. ARGV: result field, record, event data (JSON), stream cap. Records a call's
 * result unless one is, with its `tool_result` event; 1 when this one was, 0 when one was already
 * or the run is gone (no hash is made again for it).
 */
const RECORD_RESULT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then return 0 end
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[4], '*', 'type', 'tool_result', 'data', ARGV[3])
return 1
`;

/** The events a turn is told by, recorded with it: `turn`, then one `tool_call` per call. */
export type AgentTurnEvents = ({ type: 'turn'; data: RunEventData['turn'] } | { type: 'tool_call'; data: RunEventData['tool_call'] })[];

/** The stream length cap of a run's events, as the store's appends give it. */
const EVENTS_MAXLEN = '20000';

const parse = <T>(text: string | null | undefined): T | undefined => (text ? (JSON.parse(text) as T) : undefined);

/** Reads and writes the transcripts of a run's agent steps; `key` is the run's hash. */
export class AgentTranscripts {
  readonly #redis: Redis;
  readonly #recordTurn: ScriptCommand;
  readonly #recordResult: ScriptCommand;
  constructor(redis: Redis) {
    this.#redis = redis;
    this.#recordTurn = scriptCommand(redis, 'syAgentTurn', RECORD_TURN, { numberOfKeys: 2 });
    this.#recordResult = scriptCommand(redis, 'syAgentResult', RECORD_RESULT, { numberOfKeys: 2 });
  }

  /** The instructions and prompt, as the first start evaluated them: a later start keeps those. */
  async open(options: { key: string; stage: string; model: string; instructions: string | null; prompt: string }): Promise<void> {
    const { key, stage } = options;
    // One round trip: each write stands alone (a later start keeps the first), so no transaction is
    // needed; sent one after the other, not as an ioredis pipeline (see KeyedPipeline).
    await Promise.all([
      this.#redis.hsetnx(key, field(stage, 'opening'), JSON.stringify({ instructions: options.instructions, prompt: options.prompt })),
      this.#redis.hsetnx(key, field(stage, 'model'), options.model),
    ]);
  }

  /** Records turn `turn` with its events (`events`: the run's stream), written only when the turn is. */
  async recordTurn(options: { key: string; events: string; stage: string; turn: number; record: AgentTurnRecord; told: AgentTurnEvents }): Promise<'recorded' | 'exists' | 'gap' | 'ended'> {
    const { key, stage, turn, record } = options;
    const told = options.told.flatMap((event) => [event.type, JSON.stringify(event.data)]);
    const answer = await this.#recordTurn(key, options.events, stage, turn, JSON.stringify(record), record.usage.prompt_tokens, record.usage.completion_tokens, costNanos(record.cost_usd), EVENTS_MAXLEN, ...told);
    return answer as 'recorded' | 'exists' | 'gap' | 'ended';
  }

  /**
   * Records a call's result unless one is recorded already, and its `tool_result` event with it
   * (`events`: the run's stream); true when this one was.
   */
  async recordResult(options: { key: string; events: string; stage: string; turn: number; index: number; record: AgentResultRecord; event: RunEventData['tool_result'] }): Promise<boolean> {
    const { key, stage, turn, index, record } = options;
    return (await this.#recordResult(key, options.events, field(stage, `result.${turn}.${index}`), JSON.stringify(record), JSON.stringify(options.event), EVENTS_MAXLEN)) === 1;
  }

  /** What a call's job needs, in one read: the run's status, the call's result if recorded, and its turn. */
  async callState(options: { key: string; stage: string; turn: number; index: number }): Promise<{ status: string | null; result: AgentResultRecord | undefined; turn: AgentTurnRecord | undefined }> {
    const { key, stage, turn, index } = options;
    const [status, result, record] = await this.#redis.hmget(key, 'status', field(stage, `result.${turn}.${index}`), field(stage, `turn.${turn}`));
    return { status: status ?? null, result: parse(result), turn: parse(record) };
  }

  async nudge(options: { key: string; stage: string; turn: number; text: string }): Promise<void> {
    await this.#redis.hsetnx(options.key, field(options.stage, `nudge.${options.turn}`), options.text);
  }

  /**
   * The whole transcript: its head with the turns `expected` says there may be (the job of turn n
   * finds n−1, or n when it recorded its own before a crash), then their results: two reads, a third
   * only when more turns are recorded than expected.
   */
  async read(key: string, stage: string, expected = 0): Promise<AgentTranscript> {
    const turnFields = (from: number, to: number) => Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => [field(stage, `turn.${from + i}`), field(stage, `nudge.${from + i}`)]).flat();
    const [model, opening, turns, prompt, completion, cost, runCost, ...guessed] = await this.#redis.hmget(key, ...['model', 'opening', 'turns', 'prompt_tokens', 'completion_tokens', 'cost_nanos'].map((name) => field(stage, name)), 'cost_nanos', ...turnFields(1, expected));
    const count = Number(turns ?? 0);
    const numbers = Array.from({ length: count }, (_, i) => i + 1);
    const rest = count > expected ? await this.#redis.hmget(key, ...turnFields(expected + 1, count)) : [];
    const bodies = [...guessed, ...rest];
    const records = numbers.map((_, i) => parse<AgentTurnRecord>(bodies[2 * i]) as AgentTurnRecord);
    const resultFields = records.flatMap((turn, i) => turn.tool_calls.map((_, index) => field(stage, `result.${i + 1}.${index}`)));
    const resultTexts = resultFields.length > 0 ? await this.#redis.hmget(key, ...resultFields) : [];
    let next = 0;
    return {
      model: model ?? null,
      opening: parse(opening) ?? null,
      turns: records,
      results: records.map((turn) => turn.tool_calls.map(() => parse<AgentResultRecord>(resultTexts[next++]))),
      nudges: numbers.map((_, i) => bodies[2 * i + 1] ?? undefined),
      usage: { prompt_tokens: Number(prompt ?? 0), completion_tokens: Number(completion ?? 0) },
      costUsd: Number(cost ?? 0) / NANOS,
      runCostUsd: Number(runCost ?? 0) / NANOS,
    };
  }
}

/** The transcript as the run API shows it, from the run's fields (a hash read whole, or an archive's). */
export function transcriptView(fields: Record<string, string | null | undefined>, stage: string): AgentTranscriptView | undefined {
  const model = fields[field(stage, 'model')];
  if (!model) return undefined;
  const count = Number(fields[field(stage, 'turns')] ?? 0);
  const opening = parse<{ instructions: string | null; prompt: string }>(fields[field(stage, 'opening')]);
  const messages: AgentMessage[] = [];
  if (opening?.instructions) messages.push({ role: 'system', content: opening.instructions });
  if (opening) messages.push({ role: 'user', content: opening.prompt });
  for (let n = 1; n <= count; n += 1) {
    const turn = parse<AgentTurnRecord>(fields[field(stage, `turn.${n}`)]);
    if (!turn) break;
    messages.push({ role: 'assistant', turn: n, content: turn.content, tool_calls: turn.tool_calls, usage: turn.usage, ...(turn.cost_usd === undefined ? {} : { cost_usd: turn.cost_usd }), at: turn.at });
    turn.tool_calls.forEach((call, index) => {
      const result = parse<AgentResultRecord>(fields[field(stage, `result.${n}.${index}`)]);
      if (result) messages.push({ role: 'tool', turn: n, call_id: call.id, tool: call.tool, content: result.content, is_error: result.is_error, at: result.at });
    });
    const nudge = fields[field(stage, `nudge.${n}`)];
    if (nudge) messages.push({ role: 'user', content: nudge });
  }
  return {
    model,
    turns: count,
    usage: { prompt_tokens: Number(fields[field(stage, 'prompt_tokens')] ?? 0), completion_tokens: Number(fields[field(stage, 'completion_tokens')] ?? 0) },
    cost_usd: Number(fields[field(stage, 'cost_nanos')] ?? 0) / NANOS,
    messages,
  };
}
