/**
 * A step's `on_error` fallback in the run's record, in two scripts. Taking it: the failed step's
 * stage is `failed` with its error and names its fallback (`<stage>.fallback`), and the fallback
 * becomes a stage of the run (it had none: a run whose steps succeed never waits for it), so the
 * run's count of stages grows by one. Standing in, once the fallback has ended: its output is
 * stored as the failed step's, and the failed step counts as done (its status field reads
 * `completed`, which is what the engine's readiness checks and counters read; the stage view shows
 * it `failed`, see stage-records.ts). Both change nothing on a run that has ended and nothing when
 * sent again.
 */
import type { RunError } from '@switchyard/contracts';
import type { RunKeys } from './keys.js';
import type { Redis } from 'ioredis';
import { scriptCommand } from '@switchyard/redis';

/** KEYS: run, events. ARGV: failed stage, fallback step, error JSON, now, events maxlen. Returns 1 when taken, 0 when the run has ended. */
const TAKE_FALLBACK_SCRIPT = `
local run, failed, fallback = KEYS[1], ARGV[1], ARGV[2]
local status = redis.call('HGET', run, 'status')
if status ~= 'queued' and status ~= 'running' then return 0 end
local first = not redis.call('HGET', run, failed .. '.fallback')
redis.call('HSET', run, failed .. '.status', 'failed', failed .. '.error', ARGV[3], failed .. '.finished_at', ARGV[4], failed .. '.fallback', fallback)
if not first then return 1 end
local names = cjson.decode(redis.call('HGET', run, 'stage_names') or '[]')
local listed = false
for _, name in ipairs(names) do if name == fallback then listed = true end end
if not listed then
  names[#names + 1] = fallback
  redis.call('HSET', run, 'stage_names', cjson.encode(names))
  redis.call('HINCRBY', run, 'stage_count', 1)
end
local attempts = redis.call('HGET', run, failed .. '.attempts') or '0'
-- Stage names are plain (STAGE_NAME), so the event is assembled as text, as the stage scripts do.
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[5], '*', 'type', 'stage', 'data', '{"stage":"' .. failed .. '","status":"failed","attempt":' .. attempts .. '}')
return 1
`;

/**
 * KEYS: run, outputs, events. ARGV: failed stage, fallback step, now, events maxlen. Returns
 * {completed stages, stages in all}. Its event tells followers the progress the stand-in made
 * (the failed stage stays `failed` in its view, as in the event); written once, with the change.
 */
const STAND_IN_SCRIPT = `
local run, failed, fallback = KEYS[1], ARGV[1], ARGV[2]
local s = redis.call('HMGET', run, 'status', failed .. '.status', 'completed_stages', 'stage_count', failed .. '.attempts')
if s[1] ~= 'queued' and s[1] ~= 'running' then return {0, 0} end
if s[2] == 'completed' then return {tonumber(s[3]) or 0, tonumber(s[4]) or 0} end
local out = redis.call('HGET', KEYS[2], fallback)
if out then redis.call('HSET', KEYS[2], failed, out) end
local completed = (tonumber(s[3]) or 0) + 1
local total = tonumber(s[4]) or 0
redis.call('HSET', run, failed .. '.status', 'completed', 'completed_stages', completed)
local percent = total == 0 and 0 or math.floor(100 * completed / total + 0.5)
redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[4], '*', 'type', 'stage', 'data', '{"stage":"' .. failed .. '","status":"failed","attempt":' .. (s[5] or '0') .. ',"progress":{"percent":' .. percent .. ',"completed_stages":' .. completed .. ',"total_stages":' .. total .. '}}')
return {completed, total}
`;

interface FallbackStore {
  redis: Redis;
  keys: RunKeys;
}

/** Records that `failed` gave up and `fallback` runs for it; false when the run has ended. */
export async function takeFallback(store: FallbackStore, options: { runId: string; failed: string; fallback: string; error: RunError; maxlen?: number }): Promise<boolean> {
  const { runId } = options;
  const taken = await scriptCommand(store.redis, 'syTakeFallback', TAKE_FALLBACK_SCRIPT, { numberOfKeys: 2 })(store.keys.run(runId), store.keys.events(runId), options.failed, options.fallback, JSON.stringify(options.error), new Date().toISOString(), String(options.maxlen ?? 20_000));
  return taken === 1;
}

/** The fallback's output stands for the failed step's, which is now done; answers the run's counts. */
export async function standIn(store: FallbackStore, options: { runId: string; failed: string; fallback: string; maxlen?: number }): Promise<{ completed: number; total: number }> {
  const [completed, total] = (await scriptCommand(store.redis, 'syStandIn', STAND_IN_SCRIPT, { numberOfKeys: 3 })(store.keys.run(options.runId), store.keys.outputs(options.runId), store.keys.events(options.runId), options.failed, options.fallback, new Date().toISOString(), String(options.maxlen ?? 20_000))) as [number, number];
  return { completed, total };
}
