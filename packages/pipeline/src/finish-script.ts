/**
 * The one atomic status change of a run, as a Lua function (the stage writes' `finish` calls it
 * too) and as a script of its own: it checks the run may move from its
 * current status, records the new one, appends the `done` event when the run ends, keeps the
 * batch's counts and events in step, and starts the retention clock. Doing it in one step means a
 * run ends once, its `done` event is written once, and a batch's counts never drift.
 *
 * KEYS: run, events, outputs, active runs, ended runs, then for a run of a batch: batch, batch
 *   events, batch runs.
 * ARGV: to, the statuses it may move from (comma-separated), now, error JSON or '', result JSON or
 *   '', '1' when `to` ends the run, retention seconds.
 * Answers {1, status before, the run's kind} when it moved, {0, status} when the run is in another
 * status, {-1} when there is no such run.
 */
export const TRANSITION_FUNCTION = `
local function transition(KEYS, ARGV)
local run = redis.call('HMGET', KEYS[1], 'status', 'id', 'kind')
local cur, run_id = run[1], run[2]
if not cur then return {-1} end
if not string.find(',' .. ARGV[2] .. ',', ',' .. cur .. ',', 1, true) then return {0, cur} end
local fields = {'status', ARGV[1], 'updated_at', ARGV[3]}
if ARGV[4] ~= '' then fields[#fields + 1] = 'error'; fields[#fields + 1] = ARGV[4] end
if ARGV[5] ~= '' then fields[#fields + 1] = 'result'; fields[#fields + 1] = ARGV[5] end
redis.call('HSET', KEYS[1], unpack(fields))
local terminal = ARGV[6] == '1'
if terminal then
  -- The result is kept once, in the run: readers of the done event attach it (see withRunResult).
  local done = '{"status":"' .. ARGV[1] .. '"'
  if ARGV[4] ~= '' then done = done .. ',"error":' .. ARGV[4] end
  redis.call('XADD', KEYS[2], 'MAXLEN', '~', '20000', '*', 'type', 'done', 'data', done .. '}')
  -- A completed run's result holds every stage's output: the outputs need not be kept twice.
  if ARGV[1] == 'completed' then redis.call('DEL', KEYS[3]) end
  local ttl = tonumber(ARGV[7])
  for i = 1, 3 do redis.call('EXPIRE', KEYS[i], ttl) end
  redis.call('ZREM', KEYS[4], run_id)
  -- The compactor folds the ended run into its archive a little later (run-compaction.ts).
  local t = redis.call('TIME')
  redis.call('ZADD', KEYS[5], tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000), run_id)
end
if #KEYS >= 7 and redis.call('EXISTS', KEYS[6]) == 1 then
  redis.call('HINCRBY', KEYS[6], 'n:' .. cur, -1)
  redis.call('HINCRBY', KEYS[6], 'n:' .. ARGV[1], 1)
  if terminal then
    redis.call('XADD', KEYS[7], '*', 'type', 'run', 'data', cjson.encode({run_id = run_id, status = ARGV[1]}))
    local finished = redis.call('HINCRBY', KEYS[6], 'finished', 1)
    if finished >= tonumber(redis.call('HGET', KEYS[6], 'total')) then
      local counts = {}
      for _, s in ipairs({'queued', 'running', 'completed', 'failed', 'cancelled'}) do
        counts[s] = tonumber(redis.call('HGET', KEYS[6], 'n:' .. s) or '0')
      end
      redis.call('XADD', KEYS[7], '*', 'type', 'done', 'data', cjson.encode({counts = counts}))
      local ttl = tonumber(ARGV[7])
      redis.call('EXPIRE', KEYS[6], ttl)
      redis.call('EXPIRE', KEYS[7], ttl)
      redis.call('EXPIRE', KEYS[8], ttl)
    end
  end
end
return {1, cur, run[3]}
end
`;

export const TRANSITION_SCRIPT = `${TRANSITION_FUNCTION}
return transition(KEYS, ARGV)
`;
