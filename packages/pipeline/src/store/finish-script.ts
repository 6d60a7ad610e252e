/**
 * The one atomic status change of a run's own keys, as a Lua function (the stage writes' `finish`
 * calls it too) and as a script of its own: it checks the run may move
 * from its current status, records the new one, appends the `done` event when the run ends, and
 * starts the retention clock. Doing it in one step means a run ends once and its `done` event is
 * written once. Its keys are all the run's (one Redis Cluster slot); what the shared slot keeps
 * about the run (the active-run index, its batch's counts and events) follows in a second step,
 * SETTLE_SCRIPT (run-settle.ts), with the status this one answers.
 *
 * KEYS: run, events, outputs, and optionally the run's map items (dropped when the run ends: no branch runs after it).
 * ARGV: to, the statuses it may move from (comma-separated), now, error JSON or '', result JSON or
 *   '', '1' when `to` ends the run, retention seconds, and the result's title for listings ('' or absent: none).
 * Answers {1, status before, the run's kind, its agents' cost in nano-dollars} when it moved, {0,
 * status, '', that cost} when the run is in another status, {-1} when there is no such run. The cost
 * is final once the run has ended (a turn is not recorded after), and goes on to its batch's.
 */
export const TRANSITION_FUNCTION = `
local function transition(KEYS, ARGV)
local run = redis.call('HMGET', KEYS[1], 'status', 'id', 'kind', 'cost_nanos')
local cur = run[1]
if not cur then return {-1} end
if not string.find(',' .. ARGV[2] .. ',', ',' .. cur .. ',', 1, true) then return {0, cur, '', run[4] or '0'} end
local fields = {'status', ARGV[1], 'updated_at', ARGV[3]}
if ARGV[4] ~= '' then fields[#fields + 1] = 'error'; fields[#fields + 1] = ARGV[4] end
if ARGV[5] ~= '' then fields[#fields + 1] = 'result'; fields[#fields + 1] = ARGV[5] end
if ARGV[8] and ARGV[8] ~= '' then fields[#fields + 1] = 'title'; fields[#fields + 1] = ARGV[8] end
redis.call('HSET', KEYS[1], unpack(fields))
if ARGV[6] == '1' then
  -- The result is kept once, in the run: readers of the done event attach it (see withRunResult).
  local done = '{"status":"' .. ARGV[1] .. '"'
  if ARGV[4] ~= '' then done = done .. ',"error":' .. ARGV[4] end
  redis.call('XADD', KEYS[2], 'MAXLEN', '~', '20000', '*', 'type', 'done', 'data', done .. '}')
  -- A completed run's result holds every stage's output: the outputs need not be kept twice.
  if ARGV[1] == 'completed' then redis.call('DEL', KEYS[3]) end
  if KEYS[4] then redis.call('DEL', KEYS[4]) end
  local ttl = tonumber(ARGV[7])
  for i = 1, 3 do redis.call('EXPIRE', KEYS[i], ttl) end
end
return {1, cur, run[3], run[4] or '0'}
end
`;

export const TRANSITION_SCRIPT = `${TRANSITION_FUNCTION}
return transition(KEYS, ARGV)
`;
