/**
 * Schedules as Redis keeps them, and their BullMQ job schedulers. The schedule itself (pipeline,
 * timing, input, paused) is a field of one hash in the shared slot, written by a script that
 * holds the count bound; its ticks come from BullMQ's job scheduler of the same name on the
 * `schedule-tick` queue, which adds one delayed job per tick whatever the number of processes
 * (the scheduler and its next job live in Redis, so a restart of any process loses no tick).
 * Pausing removes the job scheduler and keeps the schedule; resuming adds it again.
 */
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { keyspace } from '@switchyard/redis';
import { bullmqTelemetry } from '@switchyard/telemetry';
import { DEFAULT_CATCH_UP_MAX, type ScheduleCatchUp, type ScheduleRequest, type ScheduleView, type RunStatus } from '@switchyard/contracts';
import { BULLMQ_EVENTS_MAXLEN, JOB_CATALOG, QUEUES, type ScheduleTickJob } from '../catalog.js';
import { DEFAULT_SCHEDULE_LIMITS, intervalMs, type ScheduleLimits } from './schedule-spec.js';

/** A schedule as stored: its request with its interval in ms, and whether it is paused. */
export interface StoredSchedule {
  name: string;
  pipeline: string;
  version: number | null;
  cron: string | null;
  /** The interval as the request gave it (`3s`, or ms). */
  every: string | number | null;
  every_ms: number | null;
  timezone: string | null;
  input: Record<string, unknown>;
  /** Its runs' priority class; null: PRIORITY_BATCH. */
  priority: number | null;
  catch_up: ScheduleCatchUp;
  catch_up_max: number | null;
  paused: boolean;
  created_at: string;
  updated_at: string;
}

/** The run a schedule's last tick started. */
export interface ScheduleTick {
  run_id: string;
  at: string;
}

/** A schedule that would pass SCHEDULES_MAX. */
export class ScheduleLimitError extends Error {
  override name = 'ScheduleLimitError';
  constructor(readonly max: number) {
    super(`There are ${max} schedules, the most there may be (SCHEDULES_MAX): delete one first`);
  }
}

/**
 * KEYS: schedules, their states. ARGV: name, the schedule's JSON (never decoded here: cjson would
 * write an empty list of its input as `{}`), most schedules, now. A schedule written again keeps
 * its state (`<paused 0|1>|<created_at>`). Answers {1, state} for a new one, {0, state} for a
 * replaced one, {-1} past the bound.
 */
const PUT_SCRIPT = `
local state = redis.call('HGET', KEYS[2], ARGV[1])
if state and redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
  return {0, state}
end
if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[3]) then return {-1} end
state = '0|' .. ARGV[4]
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[2], ARGV[1], state)
return {1, state}
`;

/** KEYS: schedules, their states. ARGV: name, paused ('1' or '0'). Answers the new state, or false when there is no schedule. */
const PAUSE_SCRIPT = `
local state = redis.call('HGET', KEYS[2], ARGV[1])
if not state or redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return false end
state = ARGV[2] .. string.sub(state, 2)
redis.call('HSET', KEYS[2], ARGV[1], state)
return state
`;

export interface ScheduleStoreOptions {
  redis: Redis;
  /** The deployment's prefix (BullMQ's and the run store's). */
  prefix: string;
  /** What a schedule may be (default DEFAULT_SCHEDULE_LIMITS). */
  limits?: Partial<ScheduleLimits> | undefined;
}

type ScheduleSpec = Omit<StoredSchedule, 'paused' | 'created_at'>;

/** A schedule from its spec and its state (`<paused 0|1>|<created_at>`). */
function parseRecord(spec: string | null | undefined, state: string | null | undefined): StoredSchedule | null {
  if (!spec) return null;
  // A schedule stored before `every`, `catch_up` and `priority` were kept reads as what it did then.
  const parsed = JSON.parse(spec) as Partial<ScheduleSpec> & Omit<ScheduleSpec, 'every' | 'catch_up' | 'catch_up_max' | 'priority'>;
  return { ...parsed, every: parsed.every ?? parsed.every_ms, priority: parsed.priority ?? null, catch_up: parsed.catch_up ?? 'latest', catch_up_max: parsed.catch_up_max ?? null, paused: state?.startsWith('1') === true, created_at: state?.slice(2) || parsed.updated_at };
}

export class ScheduleStore {
  readonly limits: Readonly<ScheduleLimits>;
  readonly queue: Queue<ScheduleTickJob>;
  readonly #redis: Redis;
  readonly #key: string;
  readonly #lastKey: string;
  readonly #stateKey: string;

  constructor(options: ScheduleStoreOptions) {
    this.#redis = options.redis;
    this.limits = { ...DEFAULT_SCHEDULE_LIMITS, ...options.limits };
    const shared = keyspace(options.prefix).shared;
    this.#key = `${shared}:schedules`;
    this.#lastKey = `${shared}:schedules:last`;
    this.#stateKey = `${shared}:schedules:state`;
    this.queue = new Queue<ScheduleTickJob>(QUEUES.scheduleTick, { connection: options.redis, prefix: options.prefix, streams: { events: { maxLen: BULLMQ_EVENTS_MAXLEN } }, ...bullmqTelemetry() });
    // The shared connection's errors are reported where it is followed.
    this.queue.on('error', () => undefined);
  }

  /** Stores a schedule (checked before: checkScheduleRequest) and sets its job scheduler unless it is paused. */
  async put(name: string, request: ScheduleRequest): Promise<{ created: boolean; schedule: StoredSchedule }> {
    const now = new Date().toISOString();
    const spec: ScheduleSpec = {
      name,
      pipeline: request.pipeline,
      version: request.version ?? null,
      cron: request.cron ?? null,
      every: request.every ?? null,
      every_ms: request.every === undefined ? null : intervalMs(request.every),
      timezone: request.timezone ?? null,
      input: request.input,
      priority: request.priority ?? null,
      catch_up: request.catch_up ?? 'latest',
      catch_up_max: (request.catch_up ?? 'latest') === 'all' ? (request.catch_up_max ?? DEFAULT_CATCH_UP_MAX) : null,
      updated_at: now,
    };
    const text = JSON.stringify(spec);
    const reply = (await this.#redis.eval(PUT_SCRIPT, 2, this.#key, this.#stateKey, name, text, String(this.limits.maxSchedules), now)) as [number, string?];
    if (reply[0] === -1) throw new ScheduleLimitError(this.limits.maxSchedules);
    const schedule = parseRecord(text, reply[1]) as StoredSchedule;
    if (!schedule.paused) await this.#upsertScheduler(schedule);
    return { created: reply[0] === 1, schedule };
  }

  async get(name: string): Promise<StoredSchedule | null> {
    // Sent together, so one round trip; a failed read fails the call rather than passing for a schedule gone.
    const [spec, state] = await Promise.all([this.#redis.hget(this.#key, name), this.#redis.hget(this.#stateKey, name)]);
    return parseRecord(spec, state);
  }

  /** How many schedules there are. */
  count(): Promise<number> {
    return this.#redis.hlen(this.#key);
  }

  /** A page of schedules by name, and how many there are in all. */
  async list(options: { offset: number; limit: number }): Promise<{ schedules: StoredSchedule[]; total: number }> {
    // At most SCHEDULES_MAX names (100,000 at most): read in one HKEYS, sorted here.
    const names = (await this.#redis.hkeys(this.#key)).sort();
    const page = names.slice(options.offset, options.offset + options.limit);
    if (page.length === 0) return { schedules: [], total: names.length };
    const [specs, states] = await Promise.all([this.#redis.hmget(this.#key, ...page), this.#redis.hmget(this.#stateKey, ...page)]);
    const schedules = specs.map((spec, i) => parseRecord(spec, states[i]));
    return { schedules: schedules.filter((s): s is StoredSchedule => s !== null), total: names.length };
  }

  /** Pauses (true) or resumes (false) a schedule; null when there is none. */
  async setPaused(name: string, paused: boolean): Promise<StoredSchedule | null> {
    const state = (await this.#redis.eval(PAUSE_SCRIPT, 2, this.#key, this.#stateKey, name, paused ? '1' : '0')) as string | null;
    const schedule = state ? await this.get(name) : null;
    if (!schedule) return null;
    if (paused) await this.queue.removeJobScheduler(name);
    else await this.#upsertScheduler(schedule);
    return schedule;
  }

  /** Deletes a schedule and its job scheduler (its next tick with it); false when there was none. */
  async delete(name: string): Promise<boolean> {
    const [[, removed] = []] = ((await this.#redis.multi().hdel(this.#key, name).hdel(this.#stateKey, name).hdel(this.#lastKey, name).exec()) ?? []) as [unknown, number][];
    await this.queue.removeJobScheduler(name);
    return removed === 1;
  }

  /** Records the run a tick started, unless a later tick's is recorded already. */
  async recordTick(name: string, tick: ScheduleTick): Promise<void> {
    const last = await this.lastTicks([name]);
    const current = last.get(name);
    if (current && current.at >= tick.at) return;
    await this.#redis.hset(this.#lastKey, name, JSON.stringify(tick));
  }

  /** The last tick of each schedule named. */
  async lastTicks(names: readonly string[]): Promise<Map<string, ScheduleTick>> {
    if (names.length === 0) return new Map();
    const values = await this.#redis.hmget(this.#lastKey, ...names);
    return new Map(names.flatMap((name, i) => (values[i] ? [[name, JSON.parse(values[i]) as ScheduleTick] as const] : [])));
  }

  /** When each schedule's next tick is due (ms), as its job scheduler says; absent while paused. */
  async nextTicks(names: readonly string[]): Promise<Map<string, number>> {
    const entries = await Promise.all(names.map(async (name) => [name, (await this.queue.getJobScheduler(name))?.next] as const));
    return new Map(entries.flatMap(([name, next]) => (typeof next === 'number' ? [[name, next] as const] : [])));
  }

  /**
   * Sets the job scheduler of every schedule not paused that has none (a process died between
   * storing a schedule and setting its scheduler). Every worker process does this as it starts.
   */
  async restoreSchedulers(): Promise<number> {
    let restored = 0;
    for (let offset = 0; ; offset += 200) {
      const { schedules, total } = await this.list({ offset, limit: 200 });
      for (const schedule of schedules) {
        if (schedule.paused || (await this.queue.getJobScheduler(schedule.name))) continue;
        await this.#upsertScheduler(schedule);
        restored += 1;
      }
      if (offset + 200 >= total) return restored;
    }
  }

  /** The views of `schedules`, with their next tick and their last run (`statusOf` reads its status). */
  async views(schedules: readonly StoredSchedule[], statusOf: (runIds: string[]) => Promise<(RunStatus | null)[]>): Promise<ScheduleView[]> {
    const names = schedules.map((s) => s.name);
    const [next, last] = await Promise.all([this.nextTicks(names), this.lastTicks(names)]);
    const lastIds = names.map((name) => last.get(name)?.run_id).filter((id): id is string => id !== undefined);
    const statuses = new Map(lastIds.map((id, i) => [id, i] as const));
    const read = await statusOf(lastIds);
    return schedules.map((s) => {
      const tick = last.get(s.name);
      const nextAt = next.get(s.name);
      return {
        ...s,
        next_run_at: s.paused || nextAt === undefined ? null : new Date(nextAt).toISOString(),
        last_run: tick ? { ...tick, status: read[statuses.get(tick.run_id) ?? -1] ?? null } : null,
      };
    });
  }

  async close(): Promise<void> {
    await this.queue.close();
  }

  async #upsertScheduler(schedule: StoredSchedule): Promise<void> {
    const timing = schedule.cron !== null ? { pattern: schedule.cron, ...(schedule.timezone ? { tz: schedule.timezone } : {}) } : { every: schedule.every_ms ?? 60_000 };
    await this.queue.upsertJobScheduler(schedule.name, timing, { name: 'schedule.tick', data: { schedule: schedule.name }, opts: JOB_CATALOG['schedule.tick'].options });
  }
}
