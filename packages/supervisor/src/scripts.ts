/**
 * Every change to a task group's status or phases is one Lua script, so that it is checked and
 * made in one step whichever process or session asks. The project's in-progress pointer is only
 * ever set by a script that finds it empty: that is what keeps at most one task group
 * IN_PROGRESS per project.
 */

/**
 * A status change of a task group.
 * KEYS: task hash, project's in-progress pointer, then (cancel only) the project's PENDING task
 * hashes oldest first, one of which takes over when the task group cancelled was in progress.
 * ARGV: action (start|continue|suspend|finish|cancel), task id, now, cancellation reason.
 * Returns {outcome, status before, other task id}; outcome is ok, missing, already, invalid,
 * not_ready (finish before a passed validation) or conflict (the other is in progress).
 */
export const TRANSITION_SCRIPT = `
local rules = {
  start = {from = {PENDING = true}, to = 'IN_PROGRESS', stamp = 'started_at'},
  continue = {from = {SUSPENDED = true}, to = 'IN_PROGRESS', stamp = 'resumed_at'},
  suspend = {from = {IN_PROGRESS = true}, to = 'SUSPENDED', stamp = 'suspended_at'},
  finish = {from = {IN_PROGRESS = true}, to = 'COMPLETED', stamp = 'completed_at'},
  cancel = {from = {PENDING = true, IN_PROGRESS = true, SUSPENDED = true}, to = 'CANCELLED', stamp = 'cancelled_at'},
}
local action, id, now = ARGV[1], ARGV[2], ARGV[3]
local rule = rules[action]
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {'missing', '', ''} end
if status == rule.to then return {'already', status, ''} end
if not rule.from[status] then return {'invalid', status, ''} end
if action == 'finish' and redis.call('HGET', KEYS[1], 'validation_passed') ~= '1' then return {'not_ready', status, ''} end
if rule.to == 'IN_PROGRESS' then
  local current = redis.call('GET', KEYS[2])
  if current then return {'conflict', status, current} end
  redis.call('SET', KEYS[2], id)
elseif status == 'IN_PROGRESS' and redis.call('GET', KEYS[2]) == id then
  redis.call('DEL', KEYS[2])
end
redis.call('HSET', KEYS[1], 'status', rule.to, rule.stamp, now)
if action == 'cancel' and ARGV[4] ~= '' then redis.call('HSET', KEYS[1], 'cancellation_reason', ARGV[4]) end
local switched = ''
if action == 'cancel' and status == 'IN_PROGRESS' then
  for i = 3, #KEYS do
    if redis.call('HGET', KEYS[i], 'status') == 'PENDING' then
      switched = redis.call('HGET', KEYS[i], 'task_id')
      redis.call('HSET', KEYS[i], 'status', 'IN_PROGRESS', 'started_at', now)
      redis.call('SET', KEYS[2], switched)
      break
    end
  end
end
return {'ok', status, switched}
`;

/**
 * Opens the next phase of an IN_PROGRESS task group, if its latest phase is still the one the
 * caller saw (two sessions calling next at once open one phase, not two).
 * KEYS: task hash, task's phase list, the new phase's hash.
 * ARGV: latest phase id seen ('' for none), new phase id, type, title, now, task id.
 * Returns {ok, order}, {stale} or {invalid, status}.
 */
export const ADVANCE_SCRIPT = `
local status = redis.call('HGET', KEYS[1], 'status')
if status ~= 'IN_PROGRESS' then return {'invalid', status or ''} end
local current = redis.call('HGET', KEYS[1], 'current_phase_id') or ''
if current ~= ARGV[1] then return {'stale', ''} end
local order = redis.call('HINCRBY', KEYS[1], 'phase_count', 1)
redis.call('HSET', KEYS[3], 'id', ARGV[2], 'task_id', ARGV[6], 'type', ARGV[3], 'title', ARGV[4], 'status', 'IN_PROGRESS', 'order', order, 'created_at', ARGV[5])
redis.call('RPUSH', KEYS[2], ARGV[2])
redis.call('HSET', KEYS[1], 'current_phase_id', ARGV[2])
return {'ok', tostring(order)}
`;

/**
 * Completes the phase being worked on, recording its result; a VALIDATION phase's outcome is
 * kept on the task group, where finish_task looks for it.
 * KEYS: task hash, phase hash. ARGV: phase id, now, result JSON, passed ('1', '0' or '').
 * Returns {ok}, {task_status, status}, {not_current} or {phase_status, status}.
 */
export const REPORT_SCRIPT = `
local status = redis.call('HGET', KEYS[1], 'status')
if status ~= 'IN_PROGRESS' then return {'task_status', status or ''} end
if redis.call('HGET', KEYS[1], 'current_phase_id') ~= ARGV[1] then return {'not_current', ''} end
local phase = redis.call('HGET', KEYS[2], 'status')
if phase ~= 'IN_PROGRESS' then return {'phase_status', phase or ''} end
redis.call('HSET', KEYS[2], 'status', 'COMPLETED', 'completed_at', ARGV[2], 'result', ARGV[3])
if ARGV[4] ~= '' then redis.call('HSET', KEYS[1], 'validation_passed', ARGV[4]) end
return {'ok', ''}
`;

/** Sets a field of an existing step only. KEYS: steps hash, field's hash. ARGV: identifier, value. */
export const UPDATE_STEP_SCRIPT = `
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
return 1
`;

/** Claims a username and writes its user and first token. KEYS: username, user hash, token. ARGV: user id, username, created_at. */
export const CREATE_USER_SCRIPT = `
if not redis.call('SET', KEYS[1], ARGV[1], 'NX') then return 0 end
redis.call('HSET', KEYS[2], 'user_id', ARGV[1], 'username', ARGV[2], 'created_at', ARGV[3])
redis.call('SET', KEYS[3], ARGV[1])
return 1
`;
