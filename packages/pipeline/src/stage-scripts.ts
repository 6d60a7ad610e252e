import type { Redis } from 'ioredis';
import { TRANSITION_SCRIPT } from './finish-script.js';

/**
 * A stage's start and end, each one Lua script: the hot path of every job is two round trips to
 * Redis instead of a dozen. Stage records are JSON in the run's stages hash.
 */

/**
 * KEYS: run, stages, outputs, events, [batch]. ARGV: stage, now, maxlen, input stage names...
 * Returns {'missing'} | {'ended', status} | {'done', output, inputs...} | {'started', attempt, inputs...}.
 */
export const STAGE_START_SCRIPT = `
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {'missing'} end
if status == 'completed' or status == 'failed' or status == 'cancelled' then return {'ended', status} end
local function inputs(reply)
  for i = 4, #ARGV do reply[#reply + 1] = redis.call('HGET', KEYS[3], ARGV[i]) or '' end
  return reply
end
local done = redis.call('HGET', KEYS[3], ARGV[1])
if done then return inputs({'done', done}) end
if status == 'queued' then
  redis.call('HSET', KEYS[1], 'status', 'running', 'updated_at', ARGV[2])
  if #KEYS >= 5 and redis.call('EXISTS', KEYS[5]) == 1 then
    redis.call('HINCRBY', KEYS[5], 'n:queued', -1)
    redis.call('HINCRBY', KEYS[5], 'n:running', 1)
  end
end
local raw = redis.call('HGET', KEYS[2], ARGV[1])
local rec = raw and cjson.decode(raw) or {name = ARGV[1], attempts = 0, error = cjson.null}
rec.status = 'running'
rec.attempts = (tonumber(rec.attempts) or 0) + 1
if rec.started_at == nil or rec.started_at == cjson.null then rec.started_at = ARGV[2] end
rec.finished_at = cjson.null
redis.call('HSET', KEYS[2], ARGV[1], cjson.encode(rec))
redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[3], '*', 'type', 'stage', 'data', cjson.encode({stage = ARGV[1], status = 'running', attempt = rec.attempts}))
return inputs({'started', tostring(rec.attempts)})
`;

/**
 * KEYS: stages, outputs, events, run. ARGV: stage, now, maxlen, output JSON.
 * Stores the output, marks the stage completed, and appends its `stage` and `progress` events.
 */
export const STAGE_COMPLETE_SCRIPT = `
redis.call('HSET', KEYS[2], ARGV[1], ARGV[4])
local raw = redis.call('HGET', KEYS[1], ARGV[1])
local rec = raw and cjson.decode(raw) or {name = ARGV[1], attempts = 1, started_at = ARGV[2]}
-- A counter on the run, so progress costs no pass over the other stages.
local completed
if rec.status == 'completed' then
  completed = tonumber(redis.call('HGET', KEYS[4], 'completed_stages') or '0')
else
  completed = redis.call('HINCRBY', KEYS[4], 'completed_stages', 1)
end
rec.status = 'completed'
rec.finished_at = ARGV[2]
rec.error = cjson.null
redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(rec))
redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[3], '*', 'type', 'stage', 'data', cjson.encode({stage = ARGV[1], status = 'completed', attempt = rec.attempts}))
local total = tonumber(redis.call('HGET', KEYS[4], 'stage_count') or '0')
if total < completed then total = completed end
local percent = total == 0 and 0 or math.floor(100 * completed / total + 0.5)
redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[3], '*', 'type', 'progress', 'data', cjson.encode({percent = percent, completed_stages = completed, total_stages = total}))
return completed
`;

type ScriptCall = (...args: (string | number)[]) => Promise<unknown>;

export interface RunScripts {
  stageStart: ScriptCall;
  stageComplete: ScriptCall;
  transition: ScriptCall;
}

/**
 * The run scripts as ioredis commands on `redis`: sent by SHA (EVALSHA) after the first call, so
 * the hot path does not ship and hash the script text every time.
 */
export function runScripts(redis: Redis): RunScripts {
  const commands = redis as unknown as Partial<Record<string, ScriptCall>>;
  if (!commands.syStageStart) {
    redis.defineCommand('syStageStart', { lua: STAGE_START_SCRIPT });
    redis.defineCommand('syStageComplete', { numberOfKeys: 4, lua: STAGE_COMPLETE_SCRIPT });
    redis.defineCommand('syTransition', { lua: TRANSITION_SCRIPT });
  }
  const bound = (name: string): ScriptCall => {
    const command = commands[name];
    if (!command) throw new Error(`script ${name} was not defined`);
    return command.bind(redis);
  };
  return { stageStart: bound('syStageStart'), stageComplete: bound('syStageComplete'), transition: bound('syTransition') };
}
