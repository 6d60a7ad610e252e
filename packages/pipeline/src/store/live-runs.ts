/**
 * Live runs per API key: the runs a caller holds at once (queued, running, waiting), its child
 * runs included, bounded by `liveRunsPerKey` (RUNS_MAX_LIVE_PER_KEY). A run is admitted before it
 * is written and released when it ends, each by a script on the shared slot that keeps, together,
 *
 * - `{sy}:runs:live`: every admitted run not yet released, by when it was admitted (ms);
 * - `{sy}:runs:live:owner`: run id → the id of the key that holds it;
 * - `{sy}:runs:live:count`: key id → how many runs it holds,
 *
 * so a count is always the number of its runs in the set: an admission sent twice (a command resent,
 * a job retried with the same child id) counts once, and a release once. The release is part of the
 * settle step every end passes through (run-settle.ts, the reconciler's included), so a run that
 * ends is released whichever process ends it. A process that dies between admitting a run and
 * writing it leaves an admission with no run: the reconciler's sweep (`releaseOrphans`) looks at
 * admissions older than its grace that are not in the active-run index, releases those whose run is
 * missing or ended, and indexes those that were written but not indexed (that crash too).
 *
 * Kept apart from the run store's other scripts so that flow control (concurrency keys) can share
 * this bookkeeping later.
 */
import type { Redis } from 'ioredis';
import { scriptCommand, type ScriptCommand } from '@switchyard/redis';
import { TERMINAL_STATUSES, type RunStatus } from '@switchyard/contracts';
import type { RunKeys } from './keys.js';

type LiveRunKeys = Pick<RunKeys, 'activeRuns' | 'liveRuns' | 'liveRunOwners' | 'liveRunCounts'>;

/** The keys of the live-run bookkeeping, in the order the scripts take them. */
export function liveRunKeys(keys: LiveRunKeys): [live: string, owners: string, counts: string] {
  return [keys.liveRuns, keys.liveRunOwners, keys.liveRunCounts];
}

/**
 * Releases one run (Lua, for the scripts that end runs): drops it from the live set and its key's
 * count. `live`, `owners`, `counts` name the keys as the script has them.
 */
export const RELEASE_LIVE_RUN_LUA = `
local function release_live_run(live, owners, counts, run_id)
  local owner = redis.call('HGET', owners, run_id)
  if not owner then return 0 end
  redis.call('HDEL', owners, run_id)
  redis.call('ZREM', live, run_id)
  if redis.call('HINCRBY', counts, owner, -1) <= 0 then redis.call('HDEL', counts, owner) end
  return 1
end
`;

/**
 * KEYS: live, owners, counts. ARGV: key id, the most it may hold, now (ms), run ids.
 * Admits the runs not admitted yet when the key's count leaves room for all of them, else none.
 * Answers {1 admitted | 0 refused, the key's count}.
 */
const ADMIT_SCRIPT = `
local owner, most, now = ARGV[1], tonumber(ARGV[2]), ARGV[3]
local held = tonumber(redis.call('HGET', KEYS[3], owner) or '0')
local fresh = 0
for i = 4, #ARGV do
  if redis.call('HEXISTS', KEYS[2], ARGV[i]) == 0 then fresh = fresh + 1 end
end
if fresh == 0 then return {1, held} end
if held + fresh > most then return {0, held} end
for i = 4, #ARGV do
  if redis.call('HSETNX', KEYS[2], ARGV[i], owner) == 1 then redis.call('ZADD', KEYS[1], now, ARGV[i]) end
end
return {1, redis.call('HINCRBY', KEYS[3], owner, fresh)}`;

/** KEYS: live, owners, counts. ARGV: run ids. Releases each; answers how many were held. */
const RELEASE_SCRIPT = `${RELEASE_LIVE_RUN_LUA}
local n = 0
for i = 1, #ARGV do n = n + release_live_run(KEYS[1], KEYS[2], KEYS[3], ARGV[i]) end
return n`;

/**
 * KEYS: live, active runs. ARGV: admitted before (ms), now (ms), most to look at.
 * The oldest admissions older than the cutoff: those in the active index are live and move to the
 * back (scored now, so the next look reaches past them); the others are answered, to be checked.
 */
const SUSPECTS_SCRIPT = `
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
local suspects = {}
for _, id in ipairs(ids) do
  if redis.call('ZSCORE', KEYS[2], id) then redis.call('ZADD', KEYS[1], 'XX', ARGV[2], id)
  else suspects[#suspects + 1] = id end
end
return suspects`;

/**
 * A key asked for more runs than it may hold at once (RUNS_MAX_LIVE_PER_KEY): nothing was written.
 * The API answers 429 `too_many_runs`; the MCP tools an error result with the same code.
 */
export class TooManyRunsError extends Error {
  override name = 'TooManyRunsError';
  readonly code = 'too_many_runs';
  readonly details: { limit: number; held: number; asked: number; variable: string };

  constructor(options: { held: number; asked: number; most: number }) {
    super(`This API key holds ${options.held} runs not yet ended (queued, running or waiting, child runs included), and may hold at most ${options.most} at once; ${options.asked} more would pass that. Wait for some to end, or cancel some.`);
    this.details = { limit: options.most, held: options.held, asked: options.asked, variable: 'RUNS_MAX_LIVE_PER_KEY' };
  }
}

/** Admissions one sweep looks at, at most. */
const SUSPECTS_PER_SWEEP = 1000;

/** What a run store gives the live-run bookkeeping: where runs are, and how to read their status. */
export interface LiveRunsDeps {
  redis: Redis;
  keys: LiveRunKeys;
  /** Each run's status, null when its record is gone (or was never written). */
  getStatuses(ids: readonly string[]): Promise<(RunStatus | null)[]>;
  /** Puts a written run that missed its index entry into it (RunStore.ensureIndexed). */
  ensureIndexed(runId: string): Promise<void>;
}

export class LiveRuns {
  readonly #deps: LiveRunsDeps;
  readonly #keys: [string, string, string];
  readonly #admit: ScriptCommand;
  readonly #release: ScriptCommand;
  readonly #suspects: ScriptCommand;

  constructor(deps: LiveRunsDeps) {
    this.#deps = deps;
    this.#keys = liveRunKeys(deps.keys);
    this.#admit = scriptCommand(deps.redis, 'syLiveAdmit', ADMIT_SCRIPT, { numberOfKeys: 3 });
    this.#release = scriptCommand(deps.redis, 'syLiveRelease', RELEASE_SCRIPT, { numberOfKeys: 3 });
    this.#suspects = scriptCommand(deps.redis, 'syLiveSuspects', SUSPECTS_SCRIPT, { numberOfKeys: 2 });
  }

  /** Admits `runIds` for the key `owner` when it may hold them all (at most `most` at once); answers whether it did and what it holds. */
  async admit(owner: string, runIds: readonly string[], most: number): Promise<{ admitted: boolean; held: number }> {
    const [admitted, held] = (await this.#admit(...this.#keys, owner, String(most), String(Date.now()), ...runIds)) as [number, number];
    return { admitted: admitted === 1, held };
  }

  /** Admits runs (with their ids) by the key holding each (`owner`; none: not held), all of a key's or none: TooManyRunsError past `most`. */
  async admitOwned(runs: readonly { id?: string | undefined; owner?: string | undefined }[], most: number): Promise<void> {
    const byOwner = new Map<string, string[]>();
    for (const run of runs) if (run.owner && run.id) byOwner.set(run.owner, [...(byOwner.get(run.owner) ?? []), run.id]);
    for (const [owner, ids] of byOwner) {
      const { admitted, held } = await this.admit(owner, ids, most);
      if (!admitted) throw new TooManyRunsError({ held, asked: ids.length, most });
    }
  }

  /**
   * Admits `runIds` for the key `owner` as admitOwned does (TooManyRunsError past `most`), and
   * reads a hash field on the shared slot in the same round trip (a pipeline's latest version);
   * answers that field.
   */
  async admitReading(owner: string, runIds: readonly string[], most: number, read: { key: string; field: string }): Promise<string | null> {
    // Sent one after the other, so in one round trip, without an ioredis pipeline (whose making
    // copies every script on the connection: see KEYED_PIPELINE_DIRECT_MAX).
    const [value, answer] = await Promise.all([this.#deps.redis.hget(read.key, read.field), this.#admit(...this.#keys, owner, String(most), String(Date.now()), ...runIds)]);
    const [admitted, held] = answer as [number, number];
    if (admitted !== 1) throw new TooManyRunsError({ held, asked: runIds.length, most });
    return value ?? null;
  }

  /** Releases runs (a run written after its admission was refused, or one the sweep found gone). */
  async release(runIds: readonly string[]): Promise<number> {
    if (runIds.length === 0) return 0;
    return (await this.#release(...this.#keys, ...runIds)) as number;
  }

  /** How many runs the key `owner` holds. */
  async held(owner: string): Promise<number> {
    return Number((await this.#deps.redis.hget(this.#keys[2], owner)) ?? 0);
  }

  /**
   * Releases the admissions left by a process that died before writing their run (or whose end
   * was never settled), admitted more than `graceMs` ago; indexes a run written but not indexed.
   * Answers how many it released.
   */
  async releaseOrphans(graceMs: number): Promise<number> {
    const now = Date.now();
    const suspects = (await this.#suspects(this.#keys[0], this.#deps.keys.activeRuns, String(now - graceMs), String(now), String(SUSPECTS_PER_SWEEP))) as string[];
    if (suspects.length === 0) return 0;
    const statuses = await this.#deps.getStatuses(suspects);
    const ended = suspects.filter((_, i) => {
      const status = statuses[i];
      return !status || TERMINAL_STATUSES.includes(status);
    });
    for (const [i, id] of suspects.entries()) {
      const status = statuses[i];
      if (status && !TERMINAL_STATUSES.includes(status)) await this.#deps.ensureIndexed(id);
    }
    return this.release(ended);
  }
}
