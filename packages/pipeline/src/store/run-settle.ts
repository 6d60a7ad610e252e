/**
 * The second step of a run's status change: what the shared slot keeps about the run. A run's own
 * keys (`{sy:run:<id>}`) and the keys many runs share (`{sy}`: the active-run index, the batch's
 * counts and events) are in different Redis Cluster slots, so no one script can change both. The
 * run's script goes first (it decides whether the run moves, and is the truth about its status);
 * this one follows with the same status, and is safe to apply late, twice, or out of order:
 *
 * - the batch keeps, per run, the status its counts hold (`…:statuses`), so applying a status it
 *   already holds changes nothing, and a run it counts as ended is never counted again;
 * - a process that dies between the two steps leaves an ended run in the active index: the
 *   reconciler meets it there and applies this step for it (`RunStore.settleEndedRuns`).
 *
 * An ended run is also listed for the compactor (`runs:ended`, by the time it ended), which folds
 * it into its archive a little later (run-compaction.ts).
 *
 * A run (or a batch) that carries `notify` has a target in `notify:targets`; when this step ends
 * the run (or its batch's last run), it lists the target in `notify:pending` in the same call, so
 * no end can pass without its webhook being owed (see notify/notifier.ts, which enqueues it).
 *
 * An ended run is released from the runs its API key holds (live-runs.ts) in the same call.
 *
 * KEYS: active runs, ended runs, notify targets, notify pending, live runs, their owners, the
 *   keys' counts, then for a run of a batch: batch, batch events, batch runs, batch statuses.
 * ARGV: run id, status, '1' when the status ends the run, retention seconds, batch id ('' for none),
 *   the run's agents' cost in nano-dollars ('0' or absent: none), added to its batch's as it ends.
 * Answers {1 when the batch's counts changed else 0, how many webhooks it made owed}.
 */
import type { RunKeys } from './keys.js';
import { liveRunKeys, RELEASE_LIVE_RUN_LUA } from './live-runs.js';

export const SETTLE_SCRIPT = `${RELEASE_LIVE_RUN_LUA}
local run_id, to, terminal = ARGV[1], ARGV[2], ARGV[3] == '1'
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local owed = 0
local function owe(target)
  if redis.call('HEXISTS', KEYS[3], target) == 1 then
    redis.call('ZADD', KEYS[4], 'NX', now, target)
    owed = owed + 1
  end
end
if terminal and redis.call('ZREM', KEYS[1], run_id) == 1 then
  redis.call('ZADD', KEYS[2], now, run_id)
  owe('run:' .. run_id)
end
if terminal then release_live_run(KEYS[5], KEYS[6], KEYS[7], run_id) end
if #KEYS < 11 or redis.call('EXISTS', KEYS[8]) == 0 then return {0, owed} end
local held = redis.call('HGET', KEYS[11], run_id) or 'queued'
if held == to or held == 'completed' or held == 'failed' or held == 'cancelled' then return {0, owed} end
redis.call('HSET', KEYS[11], run_id, to)
redis.call('HINCRBY', KEYS[8], 'n:' .. held, -1)
redis.call('HINCRBY', KEYS[8], 'n:' .. to, 1)
if terminal then
  redis.call('XADD', KEYS[9], '*', 'type', 'run', 'data', cjson.encode({run_id = run_id, status = to}))
  if ARGV[6] and ARGV[6] ~= '' and ARGV[6] ~= '0' then redis.call('HINCRBY', KEYS[8], 'cost_nanos', ARGV[6]) end
  local finished = redis.call('HINCRBY', KEYS[8], 'finished', 1)
  if finished >= tonumber(redis.call('HGET', KEYS[8], 'total')) then
    local counts = {}
    for _, s in ipairs({'queued', 'running', 'waiting', 'completed', 'failed', 'cancelled'}) do
      counts[s] = tonumber(redis.call('HGET', KEYS[8], 'n:' .. s) or '0')
    end
    redis.call('XADD', KEYS[9], '*', 'type', 'done', 'data', cjson.encode({counts = counts}))
    local ttl = tonumber(ARGV[4])
    for i = 8, 11 do redis.call('EXPIRE', KEYS[i], ttl) end
    if ARGV[5] and ARGV[5] ~= '' then owe('batch:' .. ARGV[5]) end
  end
end
return {1, owed}
`;

/** The keys SETTLE_SCRIPT takes for a run (of `batchId`, when it has one). */
export function settleKeys(keys: RunKeys, batchId: string | null | undefined): string[] {
  const list = [keys.activeRuns, keys.endedRuns, keys.notifyTargets, keys.notifyPending, ...liveRunKeys(keys)];
  if (batchId) list.push(keys.batch(batchId), keys.batchEvents(batchId), keys.batchRuns(batchId), keys.batchStatuses(batchId));
  return list;
}
