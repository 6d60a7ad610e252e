/**
 * The pipeline store's Lua scripts. A version reaches them as decimal digits and is only ever
 * handled as that text: a Lua number is never concatenated, stored or returned, since Lua writes
 * a large one in floating point (`1e+14`, which once made a pipeline unusable for good). What
 * the hash holds is read defensively: a field or count that is not a version as the store writes
 * it (an older store's `v:1e+14`) is left out of every answer, and dropped when the pipeline is
 * deleted.
 *
 * The hash `{sy}:pipeline:<name>` holds each version (`v:<n>`, the stored JSON; `c:<n>`, the
 * definition compared with a repeat), the latest version that exists (`latest`) and the highest
 * ever given (`top`; versions are never reused, so a run's pinned version always means one
 * definition). `{sy}:pipeline:<name>:gone` keeps deleted versions (`<n>`) for the runs that had
 * started on them, for the run retention after the last deletion.
 */
import { MAX_VERSION } from '../definition/limits.js';

/** Lua: the number a version field holds, or nil when it is not one as the store writes it. */
const VERSION_OF = `
local function version_of(text)
  if type(text) ~= 'string' or #text > ${String(MAX_VERSION).length} or not string.match(text, '^[1-9][0-9]*$') then return nil end
  local n = tonumber(text)
  if n > ${MAX_VERSION} then return nil end
  return n
end
local function highest(key)
  local best, best_text = 0, nil
  for _, field in ipairs(redis.call('HKEYS', key)) do
    if string.sub(field, 1, 2) == 'v:' then
      local n = version_of(string.sub(field, 3))
      if n and n > best then best, best_text = n, string.sub(field, 3) end
    end
  end
  return best, best_text
end
local function top_of(key)
  local best, best_text = 0, nil
  for _, field in ipairs({'top', 'latest'}) do
    local text = redis.call('HGET', key, field)
    local n = version_of(text)
    if n and n > best then best, best_text = n, text end
  end
  local live, live_text = highest(key)
  if live > best then best, best_text = live, live_text end
  return best, best_text
end
`;

/**
 * KEYS: pipeline hash, names zset. ARGV: version (digits), stored JSON, canonical JSON, now (ms),
 * name, most versions at once, most pipelines, 'shipped' (exempt from both counts), the version's
 * summary JSON (what a listing shows, `d:<version>`, so that a listing never reads whole
 * definitions). Answers {outcome, version} or {'conflict', code, reason}.
 */
export const REGISTER_SCRIPT = `${VERSION_OF}
local version = ARGV[1]
local n = version_of(version)
if not n then return {'conflict', 'version_conflict', 'version ' .. version .. ' is not a version'} end
local existing = redis.call('HGET', KEYS[1], 'c:' .. version)
if existing then
  if existing == ARGV[3] then return {'unchanged', version} end
  return {'conflict', 'version_conflict', 'version ' .. version .. ' exists with another definition; versions are immutable'}
end
local top, top_text = top_of(KEYS[1])
if n <= top then return {'conflict', 'version_conflict', 'version ' .. version .. ' is not above ' .. top_text .. ', the highest this pipeline has had (versions are never reused, deleted ones included)'} end
if ARGV[8] ~= 'shipped' then
  local live = 0
  for _, field in ipairs(redis.call('HKEYS', KEYS[1])) do
    if string.sub(field, 1, 2) == 'v:' then live = live + 1 end
  end
  if live >= tonumber(ARGV[6]) then return {'conflict', 'version_limit', 'pipeline ' .. ARGV[5] .. ' has ' .. ARGV[6] .. ' versions, the most it may have at once: delete one first'} end
  if not redis.call('ZSCORE', KEYS[2], ARGV[5]) and redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[7]) then
    return {'conflict', 'pipeline_limit', 'there are ' .. ARGV[7] .. ' pipelines, the most there may be: delete one first'}
  end
end
redis.call('HSET', KEYS[1], 'v:' .. version, ARGV[2], 'c:' .. version, ARGV[3], 'd:' .. version, ARGV[9], 'latest', version, 'top', version)
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[5])
return {'created', version}
`;

/**
 * KEYS: pipeline hash, names zset, gone hash. ARGV: version (digits), seconds kept, name. Moves
 * the version to the gone hash; the latest becomes the highest left, and a pipeline with none
 * left is no longer listed. Answers {'deleted', latest or ''} or {'missing'}.
 */
export const DELETE_VERSION_SCRIPT = `${VERSION_OF}
local version = ARGV[1]
local stored = redis.call('HGET', KEYS[1], 'v:' .. version)
if not stored then return {'missing'} end
local top, top_text = top_of(KEYS[1])
redis.call('HSET', KEYS[3], version, stored)
redis.call('EXPIRE', KEYS[3], ARGV[2])
redis.call('HDEL', KEYS[1], 'v:' .. version, 'c:' .. version, 'd:' .. version)
redis.call('HSET', KEYS[1], 'top', top_text)
local latest, latest_text = highest(KEYS[1])
if latest_text then
  redis.call('HSET', KEYS[1], 'latest', latest_text)
  return {'deleted', latest_text}
end
redis.call('HDEL', KEYS[1], 'latest')
redis.call('ZREM', KEYS[2], ARGV[3])
return {'deleted', ''}
`;

/**
 * KEYS: pipeline hash, names zset, gone hash. ARGV: seconds kept, name. Moves every version to
 * the gone hash and leaves only `top`; fields that are no version as this store writes them go.
 * Answers {'deleted', versions...} or {'missing'}.
 */
export const DELETE_PIPELINE_SCRIPT = `${VERSION_OF}
local listed = redis.call('ZREM', KEYS[2], ARGV[2])
local fields = redis.call('HKEYS', KEYS[1])
local top, top_text = top_of(KEYS[1])
local deleted = {'deleted'}
for _, field in ipairs(fields) do
  local text = string.sub(field, 3)
  if string.sub(field, 1, 2) == 'v:' and version_of(text) then
    redis.call('HSET', KEYS[3], text, redis.call('HGET', KEYS[1], field))
    table.insert(deleted, text)
  end
end
if #deleted > 1 then redis.call('EXPIRE', KEYS[3], ARGV[1]) end
redis.call('DEL', KEYS[1])
if top_text then redis.call('HSET', KEYS[1], 'top', top_text) end
if listed == 0 and #deleted == 1 and #fields <= 1 then return {'missing'} end
return deleted
`;
