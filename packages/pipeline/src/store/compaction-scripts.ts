import type { Redis } from 'ioredis';
import { scriptCommand } from '@switchyard/redis';
import { KEPT_RUN_FIELDS, OUTPUTS_TOMBSTONE } from './run-archive.js';

/**
 * The two scripts of a compaction (run-compaction.ts): one reads the runs of a transaction and
 * answers each one's archive text, the other (inside the MULTI) writes them. Both take, per run,
 * its four keys (run, events, outputs, archive; one slot, see keys.ts), so on a Redis Cluster a
 * call holds one run. Scripts because ioredis building and parsing five reads and six writes per
 * run cost more worker CPU than compressing the archive did.
 */

/** The kept field names as a Lua table literal: plain names (checked), so no quoting is needed. */
function luaNames(names: readonly string[]): string {
  for (const name of names) if (!/^[a-z_]+$/.test(name)) throw new Error(`run field ${name} cannot be named in a script`);
  return `{${names.map((name) => `'${name}'`).join(', ')}}`;
}

/**
 * The archive text of each run (run-archive.ts's ArchiveText, the same JSON the Node encoder
 * writes): cjson encodes the strings and string-keyed tables; an empty list is written `[]` by
 * hand (cjson would write `{}`), and stream ids are differences computed as exact integers (ids are
 * milliseconds, far below 2^53, checked) and kept as text. cjson writes `/` as `\/`: the worker
 * writes it `/` again (archiveText), which in Lua (gsub) cost a third of the script's time.
 * KEYS: per run, run, events, outputs, archive. ARGV: none.
 * Returns per run: {} when there is nothing to do (gone, compacted already, or not ended), else
 *   {status, archive text, step_queues, stage_names, the refused stages comma-separated} ('' for a
 *   field the run lacks).
 */
export const COMPACT_READ_SCRIPT = String.raw`
local kept = {}
for _, name in ipairs(${luaNames(KEPT_RUN_FIELDS)}) do kept[name] = true end
local ended = {completed = true, failed = true, cancelled = true}

local function list(values)
  if #values == 0 then return '[]' end
  return cjson.encode(values)
end

-- Whether a field goes into the archive: not kept, and not bookkeeping only a live run needs
-- (see run-archive.ts's isLiveBookkeeping). Decided once per name: the runs of a call share most names.
local archived = {}
local function is_archived(field)
  local verdict = archived[field]
  if verdict == nil then
    verdict = not kept[field] and field ~= 'step_queues' and string.sub(field, 1, 3) ~= 'ev.' and string.sub(field, -3) ~= '.op' and string.sub(field, -8) ~= '.refused'
    archived[field] = verdict
  end
  return verdict
end

local function archive_text(k, flat)
  local fields = {}
  for i = 1, #flat, 2 do
    if is_archived(flat[i]) then fields[flat[i]] = flat[i + 1] end
  end
  local parts = {'{"v":1,"fields":', cjson.encode(fields)}
  local outputs = redis.call('HGETALL', KEYS[k + 3])
  if #outputs > 0 then
    local map = {}
    for i = 1, #outputs, 2 do map[outputs[i]] = outputs[i + 1] end
    parts[#parts + 1] = ',"outputs":'
    parts[#parts + 1] = cjson.encode(map)
  end
  local ids, types, data = {}, {}, {}
  local previous = 0
  for i, entry in ipairs(redis.call('XRANGE', KEYS[k + 2], '-', '+')) do
    local ms, seq = string.match(entry[1], '^(%d+)%-(%d+)$')
    local at = tonumber(ms)
    if not at or at > 9007199254740991 then return nil, 'stream id ' .. entry[1] .. ' cannot be archived' end
    local delta = string.format('%.0f', at - previous)
    previous = at
    ids[i] = seq == '0' and delta or (delta .. '-' .. seq)
    local kind, value = 'message', '{}'
    local entry_fields = entry[2]
    for j = 1, #entry_fields, 2 do
      if entry_fields[j] == 'type' then kind = entry_fields[j + 1] elseif entry_fields[j] == 'data' then value = entry_fields[j + 1] end
    end
    types[i] = kind
    data[i] = value
  end
  parts[#parts + 1] = ',"ids":' .. list(ids) .. ',"types":' .. list(types) .. ',"data":' .. list(data) .. '}'
  return table.concat(parts)
end

local replies = {}
for k = 0, #KEYS - 4, 4 do
  local reply = {}
  if redis.call('EXISTS', KEYS[k + 4]) == 0 then
    local flat = redis.call('HGETALL', KEYS[k + 1])
    local run, refused = {}, {}
    for i = 1, #flat, 2 do
      local field = flat[i]
      if field == 'id' or field == 'status' or field == 'step_queues' or field == 'stage_names' then run[field] = flat[i + 1]
      elseif string.sub(field, -8) == '.refused' then refused[#refused + 1] = string.sub(field, 1, -9) end
    end
    if run.id and run.id ~= '' and ended[run.status] then
      local text, problem = archive_text(k, flat)
      if not text then return redis.error_reply(problem) end
      reply = {run.status, text, run.step_queues or '', run.stage_names or '', table.concat(refused, ',')}
    end
  end
  replies[#replies + 1] = reply
end
return replies
`;

/**
 * Writes the archives of a transaction's runs (run inside its MULTI, under WATCH of what the read
 * script read, so the runs are as they were read): per run, the archive with the run's TTL (or the
 * retention when it has none), the hash rewritten with its kept fields only (a small listpack
 * again), the stream emptied (its TTL and last id stay) and, for a run that still has outputs, the
 * outputs hash replaced by its tombstone.
 * KEYS: per run, run, events, outputs, archive. ARGV: retention ms, then each run's archive.
 * Returns the number of runs written.
 */
export const COMPACT_WRITE_SCRIPT = `
local names = ${luaNames(KEPT_RUN_FIELDS)}
local runs = 0
for k = 0, #KEYS - 4, 4 do
  runs = runs + 1
  local run, outputs = KEYS[k + 1], KEYS[k + 3]
  local ttl = redis.call('PTTL', run)
  if ttl <= 0 then ttl = ARGV[1] end
  redis.call('SET', KEYS[k + 4], ARGV[runs + 1], 'PX', ttl)
  local values = redis.call('HMGET', run, unpack(names))
  local kept = {}
  for i, name in ipairs(names) do
    if values[i] then
      kept[#kept + 1] = name
      kept[#kept + 1] = values[i]
    end
  end
  redis.call('DEL', run)
  if #kept > 0 then
    redis.call('HSET', run, unpack(kept))
    redis.call('PEXPIRE', run, ttl)
  end
  redis.call('XTRIM', KEYS[k + 2], 'MAXLEN', 0)
  if redis.call('EXISTS', outputs) == 1 then
    redis.call('DEL', outputs)
    redis.call('HSET', outputs, '${OUTPUTS_TOMBSTONE}', '1')
    redis.call('PEXPIRE', outputs, ttl)
  end
end
return runs
`;

/** What the read script answers per run, as Buffers (the archive text is compressed as it came). */
export type CompactReadReply = Buffer[][];

/**
 * The archive text the read script answered, with cjson's `\/` written `/` as JSON.stringify
 * writes it. Every `/` cjson writes is escaped, so the backslash before a `/` is always that
 * escape, never the end of an escaped backslash. Latin-1 keeps the bytes as they are.
 */
export function archiveText(text: Buffer): Buffer {
  return text.includes('\\/') ? Buffer.from(text.toString('latin1').replaceAll('\\/', '/'), 'latin1') : text;
}

/** The read script's answer for `keys` (four per run); sent by SHA after its first call on a connection. */
export function readForCompaction(redis: Redis, keys: readonly string[]): Promise<CompactReadReply> {
  return scriptCommand<CompactReadReply>(redis, 'syCompactRead', COMPACT_READ_SCRIPT, { buffers: true })(keys.length, ...keys);
}

/**
 * Queues the write script on `tx`, as EVAL with its text (1.5 KB a transaction), not EVALSHA: a
 * script unknown to the server fails inside the EXEC, and ioredis would then send it again on its
 * own, outside the transaction and its WATCH. (It also takes a script queued in a transaction that
 * a WATCH voided for one the server has loaded.)
 */
export function queueCompactionWrite(tx: ReturnType<Redis['multi']>, write: { keys: readonly string[]; retentionMs: number; archives: readonly Buffer[] }): void {
  tx.eval(COMPACT_WRITE_SCRIPT, write.keys.length, ...write.keys, write.retentionMs, ...write.archives);
}
