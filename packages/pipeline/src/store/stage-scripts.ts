import type { Redis } from 'ioredis';
import { scriptCommand } from '@switchyard/redis';
import { TRANSITION_FUNCTION, TRANSITION_SCRIPT } from './finish-script.js';
import { SETTLE_SCRIPT } from './run-settle.js';

/**
 * Stage starts and completions as one Lua script that applies a list of them, so that every stage
 * write made in one turn of the event loop, by any job of any queue in the process, costs one
 * round trip and one script call (see StageWrites). A stage's record is flat fields of its run's
 * hash (see stage-records.ts), so each operation reads and writes the run with one command each.
 *
 * KEYS: per operation run, outputs, events, and the run's map items (for a start that reads its
 *   branch's item, and for a finish, which drops them) (the run's own slot; see keys.ts).
 * ARGV: now, maxlen, then per operation: kind ('start' | 'complete' | 'skip' | 'finish'), stage,
 *   key count, then for a start its operation id, flags ('r': return the run's request; 'p': peek,
 *   start nothing; 'q': a first attempt says nothing yet, its worker announces it if it lasts),
 *   the field of its branch's item in the items hash ('' for none), when a first attempt began
 *   ('' for now), the input count and the input stage names; for a completion the output JSON and
 *   when the stage began, for one whose start was not recorded ('' for now), then
 *   (completion and skip) a count and the run's fields to answer once it is recorded; for a
 *   finish the run's new status, the statuses it may move from, error JSON or '', result JSON or
 *   '', the retention seconds, the output JSON to keep ('' when it is in the result) and the
 *   result's title for listings. All are
 *   idempotent: a start seen before (its id) and a completion of a completed stage change nothing,
 *   so a command resent after a reconnect writes no event twice.
 * Returns one reply per operation, in order:
 *   start: {'missing'} | {'ended', status} | {'unready', step} | {'done' | 'peek', output, [request], [item], inputs...}
 *     | {'started' | 'running', attempt, [request], [item], inputs...} (an item not stored is ''; 'running': this start moved the run
 *     from queued to running, which its batch's counts then follow, in the shared slot)
 *   complete, skip: {1 when this call recorded it, 2 when it also moved the run from queued to
 *     running (its batch's counts then follow), 0 when found recorded before or the run gone,
 *     completed stages, stages in all, watched fields' values..., then the statuses of
 *     the branches each watched `<step>.branches` lists...}
 *   finish: the transition's answer (see TRANSITION_SCRIPT)
 *   any, when it raised an error: {'error', message}
 */
export const STAGE_WRITES_SCRIPT = `${TRANSITION_FUNCTION}
local now, maxlen = ARGV[1], ARGV[2]

-- Event data is assembled as text: stage names are plain (see STAGE_NAME) and the rest are numbers.
local function event(k, type, data)
  redis.call('XADD', k[3], 'MAXLEN', '~', maxlen, '*', 'type', type, 'data', data)
end

local function stage_event(k, stage, status, attempt, more)
  event(k, 'stage', '{"stage":"' .. stage .. '","status":"' .. status .. '","attempt":' .. attempt .. (more or '') .. '}')
end

-- A step's output as its readers see it (a map step's is the list of its branches' outputs), and
-- whether some of it is not there: the step skipped, or not done.
local function output_of(k, name)
  local branches = redis.call('HGET', k[1], name .. '.branches')
  if branches then
    local parts, gap = {}, false
    for i, branch in ipairs(cjson.decode(branches)) do
      local out = redis.call('HGET', k[2], branch)
      gap = gap or not out
      parts[i] = out or 'null'
    end
    return '[' .. table.concat(parts, ',') .. ']', gap
  end
  local out = redis.call('HGET', k[2], name)
  return out or '', not out
end

-- Whether a step with no output (or a gap in its branches') is done all the same: skipped, or
-- every branch completed.
local function done_without_output(k, name)
  local status = redis.call('HGET', k[1], name .. '.status')
  if status == 'completed' or status == 'skipped' then return true end
  local branches = redis.call('HGET', k[1], name .. '.branches')
  if not branches then return false end
  for _, branch in ipairs(cjson.decode(branches)) do
    if redis.call('HGET', k[1], branch .. '.status') ~= 'completed' then return false end
  end
  return true
end

-- flags: 'r' returns the run's request after the attempt; 'p' (peek) starts nothing; 'n' checks
-- that the wanted steps are done first (a BullMQ parent is also released when a child is removed).
local function start(k, stage, op, flags, item, at, wanted)
  local run = redis.call('HMGET', k[1], 'status', stage .. '.attempts', stage .. '.op', 'request')
  local status = run[1]
  if not status then return {'missing'} end
  if status == 'completed' or status == 'failed' or status == 'cancelled' then return {'ended', status} end
  -- The wanted outputs; with check, the first wanted step that is not done instead (a step's
  -- status is read only when its output is not there).
  local outs
  local function read(check)
    outs = {}
    for i, name in ipairs(wanted) do
      local out, gap = output_of(k, name)
      if check and gap and not done_without_output(k, name) then return name end
      outs[i] = out
    end
    return false
  end
  local function inputs(reply)
    if string.find(flags, 'r', 1, true) then reply[#reply + 1] = run[4] or 'null' end
    -- A map branch's item, from the list its step stored once for the run ('' when it is not there).
    if item ~= '' then reply[#reply + 1] = redis.call('HGET', k[4], item) or '' end
    if not outs then read(false) end
    for _, out in ipairs(outs) do reply[#reply + 1] = out end
    return reply
  end
  local done = redis.call('HGET', k[2], stage)
  if done then return inputs({'done', done}) end
  if string.find(flags, 'n', 1, true) then
    local need = read(true)
    if need then return {'unready', need} end
  end
  if string.find(flags, 'p', 1, true) then return inputs({'peek', '0'}) end
  -- The same start sent again (a command resent after a reconnect): answer it, change nothing.
  if run[3] == op then return inputs({'started', run[2]}) end
  local attempt = (tonumber(run[2]) or 0) + 1
  local fields = {stage .. '.status', 'running', stage .. '.attempts', attempt, stage .. '.op', op}
  if attempt == 1 then
    fields[#fields + 1] = stage .. '.started_at'
  else
    fields[#fields + 1] = stage .. '.finished_at'
  end
  fields[#fields + 1] = attempt == 1 and (at ~= '' and at or now) or ''
  if status == 'queued' then
    fields[#fields + 1] = 'status'
    fields[#fields + 1] = 'running'
    fields[#fields + 1] = 'updated_at'
    fields[#fields + 1] = now
  end
  redis.call('HSET', k[1], unpack(fields))
  -- A quick stage need not be told twice: its completion says it ran (see runStage).
  if attempt > 1 or not string.find(flags, 'q', 1, true) then stage_event(k, stage, 'running', attempt) end
  return inputs({status == 'queued' and 'running' or 'started', tostring(attempt)})
end

-- The counts, then the run's fields the caller watches (what decides the next steps), then for
-- each watched '<step>.branches' that is set, in order, the status of each of its branches.
local function counts(k, applied, completed, total, watch)
  local reply = {applied, completed, total}
  if #watch == 0 then return reply end
  local values = redis.call('HMGET', k[1], unpack(watch))
  for i = 1, #watch do reply[#reply + 1] = values[i] end
  local statuses = {}
  for i = 1, #watch do
    if values[i] and string.sub(watch[i], -9) == '.branches' then
      for _, branch in ipairs(cjson.decode(values[i])) do statuses[#statuses + 1] = branch .. '.status' end
    end
  end
  if #statuses > 0 then
    for _, value in ipairs(redis.call('HMGET', k[1], unpack(statuses))) do reply[#reply + 1] = value end
  end
  return reply
end

-- A completion, or with output false a skip (the step's condition was false): counted alike.
-- keep false: the output is not stored (the run ends with it, see finish).
local function complete(k, stage, output, watch, keep, at)
  local run = redis.call('HMGET', k[1], stage .. '.status', stage .. '.attempts', 'completed_stages', 'stage_count', 'status')
  -- The run is gone (its retention passed): writing would bring its keys back with no expiry.
  if not run[5] then return {0, 0, 0} end
  -- Completed already (a command resent after a reconnect): its events are in the stream once.
  if run[1] == 'completed' or run[1] == 'skipped' then return counts(k, 0, tonumber(run[3]) or 0, tonumber(run[4]) or 0, watch) end
  local final = output and 'completed' or 'skipped'
  if output and keep then redis.call('HSET', k[2], stage, output) end
  local attempt = tonumber(run[2]) or 0
  -- A counter on the run, so progress costs no pass over the other stages.
  local completed = (tonumber(run[3]) or 0) + 1
  local fields = {stage .. '.status', final, stage .. '.finished_at', now, stage .. '.error', '', 'completed_stages', completed}
  if attempt == 0 then
    attempt = 1
    fields[#fields + 1] = stage .. '.attempts'
    fields[#fields + 1] = 1
    fields[#fields + 1] = stage .. '.started_at'
    fields[#fields + 1] = (at and at ~= '') and at or now
  end
  -- The run's first stage, started from its job alone (runStage's carried start): the run was
  -- still queued, and moves now, as a start would have moved it.
  local moved = run[5] == 'queued'
  if moved then
    fields[#fields + 1] = 'status'
    fields[#fields + 1] = 'running'
    fields[#fields + 1] = 'updated_at'
    fields[#fields + 1] = now
  end
  redis.call('HSET', k[1], unpack(fields))
  local total = tonumber(run[4]) or 0
  if total < completed then total = completed end
  local percent = total == 0 and 0 or math.floor(100 * completed / total + 0.5)
  -- The run's progress rides on the stage event that moved it: one entry, not two.
  stage_event(k, stage, final, attempt, ',"progress":{"percent":' .. percent .. ',"completed_stages":' .. completed .. ',"total_stages":' .. total .. '}')
  return counts(k, moved and 2 or 1, completed, total, watch)
end

-- The last stage's completion and the end of its run's own keys, in one step (t: the transition's
-- arguments, then the output to keep: '' when it went into the result, as for a completed run).
-- The shared slot's step follows from the caller, as for any status change (run-settle.ts).
local function finish(k, stage, t)
  complete(k, stage, t[6] ~= '' and t[6] or '1', {}, t[6] ~= '')
  return transition({k[1], k[3], k[2], k[4]}, {t[1], t[2], now, t[3], t[4], '1', t[5], t[7]})
end

local replies = {}
local a, key = 3, 1
while a <= #ARGV do
  local kind, stage, nkeys = ARGV[a], ARGV[a + 1], tonumber(ARGV[a + 2])
  local k = {}
  for i = 1, nkeys do k[i] = KEYS[key + i - 1] end
  key = key + nkeys
  local ok, reply
  if kind == 'finish' then
    local t = {ARGV[a + 3], ARGV[a + 4], ARGV[a + 5], ARGV[a + 6], ARGV[a + 7], ARGV[a + 8], ARGV[a + 9]}
    a = a + 10
    ok, reply = pcall(finish, k, stage, t)
  elseif kind == 'start' then
    local op, flags, item, started = ARGV[a + 3], ARGV[a + 4], ARGV[a + 5], ARGV[a + 6]
    local wanted = {}
    for i = 1, tonumber(ARGV[a + 7]) do wanted[i] = ARGV[a + 7 + i] end
    a = a + 8 + #wanted
    ok, reply = pcall(start, k, stage, op, flags, item, started, wanted)
  else
    -- complete: output, its start time, then the watched fields; skip: the watched fields.
    local at, output, started = a + 3, false, ''
    if kind ~= 'skip' then at, output, started = a + 5, ARGV[a + 3], ARGV[a + 4] end
    local watch = {}
    for i = 1, tonumber(ARGV[at]) do watch[i] = ARGV[at + i] end
    a = at + 1 + #watch
    ok, reply = pcall(complete, k, stage, output, watch, true, started)
  end
  -- One operation's failure is its own; the others in the list still apply.
  if not ok then reply = {'error', type(reply) == 'table' and tostring(reply.err) or tostring(reply)} end
  replies[#replies + 1] = reply
end
return replies
`;

/**
 * Marks a stage's job refused because its run had ended (`<stage>.refused`), so that compaction
 * removes the failed job; nothing when the run is gone (a write would bring it back unexpiring).
 * KEYS: run. ARGV: the field.
 */
export const MARK_REFUSED_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HSET', KEYS[1], ARGV[1], '1') end
return 0
`;

/**
 * A map step's branches, recorded once: the step's place in the run's stage list is taken by its
 * branches (so a view lists what runs), and the stage count grows to match. A second call (a
 * retried fan-out) changes nothing and answers the branches recorded first. The list's items are
 * stored here once for the run (`<step>.<index>` in the items hash), where each branch's start
 * reads its own (see the start above), rather than copied into every branch's job: unless they are
 * stored already, or the run has ended (a run that ended needs none, and the key would never expire).
 * KEYS: run, items. ARGV: step, branch names as a JSON list (at least one), then each branch's item
 * as JSON (none when the list is the definition's own). Returns the branches, or false when the run is gone.
 */
export const EXPAND_SCRIPT = `
local step = ARGV[1]
local run = redis.call('HMGET', KEYS[1], step .. '.branches', 'stage_names', 'status')
local branches = run[1]
if not branches then
  if not run[2] then return false end
  local stages = {}
  for _, name in ipairs(cjson.decode(run[2])) do
    if name == step then
      for _, branch in ipairs(cjson.decode(ARGV[2])) do stages[#stages + 1] = branch end
    else
      stages[#stages + 1] = name
    end
  end
  redis.call('HSET', KEYS[1], step .. '.branches', ARGV[2], 'stage_names', cjson.encode(stages), 'stage_count', #stages)
  branches = ARGV[2]
end
local ended = run[3] == 'completed' or run[3] == 'failed' or run[3] == 'cancelled'
if #ARGV > 2 and not ended and redis.call('HEXISTS', KEYS[2], step .. '.0') == 0 then
  -- In parts: unpack takes a few thousand values at most.
  for first = 3, #ARGV, 500 do
    local fields = {}
    for i = first, math.min(first + 499, #ARGV) do
      fields[#fields + 1] = step .. '.' .. (i - 3)
      fields[#fields + 1] = ARGV[i]
    end
    redis.call('HSET', KEYS[2], unpack(fields))
  end
end
return branches
`;

export type ScriptCall = (...args: (string | number)[]) => Promise<unknown>;

export interface RunScripts {
  stageWrites: ScriptCall;
  transition: ScriptCall;
  settle: ScriptCall;
  markRefused: ScriptCall;
  expand: ScriptCall;
}

/**
 * The run scripts as ioredis commands on `redis`: sent by SHA (EVALSHA) after the first call, so
 * the hot path does not ship and hash the script text every time.
 */
export function runScripts(redis: Redis): RunScripts {
  return {
    stageWrites: scriptCommand(redis, 'syStageWrites', STAGE_WRITES_SCRIPT),
    transition: scriptCommand(redis, 'syTransition', TRANSITION_SCRIPT),
    settle: scriptCommand(redis, 'sySettle', SETTLE_SCRIPT),
    markRefused: scriptCommand(redis, 'syMarkRefused', MARK_REFUSED_SCRIPT, { numberOfKeys: 1 }),
    expand: scriptCommand(redis, 'syExpand', EXPAND_SCRIPT, { numberOfKeys: 2 }),
  };
}
