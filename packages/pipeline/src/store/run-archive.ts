/**
 * A finished run, compacted (see run-compaction.ts): its result, request, stage records and every
 * event it recorded, brotli-compressed together in one value (`{sy:run:<id>}:archive`). The
 * section texts of a story's result repeat its `content` events, so compressing them together
 * stores that text about once. The run's hash keeps only the small fields that listing, status
 * checks and the scripts read (KEPT_RUN_FIELDS); its event stream is left empty, with its TTL and
 * its last id, so an event appended late still expires and still sorts after the archived ones.
 *
 * Readers see no difference: a run's fields are the archive's with the hash's on top, and its
 * events are the archived ones followed by whatever its stream holds, under their own ids.
 *
 * The archive is the brotli of a JSON text (ArchiveText, version 1). The compaction builds that text
 * in a Redis script (compaction-scripts.ts), encodeArchive in Node: the same JSON but for the order
 * of object keys and how a few characters are escaped, so decodeArchive reads either, and every
 * archive written before.
 */
import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';
import type { Redis } from 'ioredis';
import { KeyedPipeline } from '@switchyard/redis';
import { toStreamEvents, type StreamEvent } from './events.js';
import type { RunKeys } from './keys.js';

/** The run fields a compacted run keeps in its hash: short values, so the hash stays a listpack. */
export const KEPT_RUN_FIELDS: readonly string[] = ['id', 'kind', 'status', 'created_at', 'updated_at', 'batch_id', 'pipeline', 'pipeline_version', 'stage_count', 'completed_stages', 'topic', 'title', 'parent'];

/** What a compacted run held besides its kept fields. */
export interface RunArchive {
  /** Every other field of the run's hash, as stored (JSON text stays text). */
  fields: Record<string, string>;
  /** Its events in order, with their stream ids and data exactly as they were. */
  events: StreamEvent[];
  /** The stored outputs of a run that did not complete (a completed run's result holds them). */
  outputs?: Record<string, string>;
}

/**
 * What a compacted run's outputs hash holds instead of its outputs: a field no stage can be named
 * (stage names begin with a letter), so that a stage completing late writes into a key that
 * still expires with the run.
 */
export const OUTPUTS_TOMBSTONE = '.compacted';

/**
 * Brotli's quality 6: measured on a story run (46 KB of fields and events), 5.8 KB in 0.7 ms of
 * CPU; quality 11 saves 0.5 KB more for 66 ms. Quality 5 gives the bench's 4 KB archives the same
 * size for 15% less CPU, but texts of 50 to 110 KB 2 to 4% bigger. Compressed on the event loop: on libuv's pool the
 * same work cost 1 ms one at a time and nearly 4 ms each when twenty ran at once.
 */
const QUALITY = 6;

/**
 * Run fields only a live run needs: who appended what (`ev.<writer>`), the last start's id
 * (`<stage>.op`), a start refused once the run had ended (`<stage>.refused`) and the queue of each
 * step (`step_queues`), both read by the compaction that archives the run.
 */
const isLiveBookkeeping = (field: string) => field === 'step_queues' || field.startsWith('ev.') || field.endsWith('.op') || field.endsWith('.refused');

/** Splits a run's hash into what it keeps and what goes into the archive (bookkeeping of writes dropped). */
export function splitRunFields(hash: Record<string, string>): { kept: Record<string, string>; archived: Record<string, string> } {
  const kept: Record<string, string> = {};
  const archived: Record<string, string> = {};
  for (const [field, value] of Object.entries(hash)) {
    if (KEPT_RUN_FIELDS.includes(field)) kept[field] = value;
    else if (!isLiveBookkeeping(field)) archived[field] = value;
  }
  return { kept, archived };
}

/** Stream ids as differences from the one before ("1732300000000-3" after "…-0" is "0-3"): fewer digits to compress. */
function encodeIds(ids: readonly string[]): string[] {
  let previous = 0;
  return ids.map((id) => {
    const [ms, seq] = id.split('-');
    const at = Number(ms);
    if (!Number.isSafeInteger(at)) throw new Error(`stream id ${id} cannot be archived`);
    const delta = at - previous;
    previous = at;
    return seq && seq !== '0' ? `${delta}-${seq}` : String(delta);
  });
}

function decodeIds(deltas: readonly string[]): string[] {
  let at = 0;
  return deltas.map((delta) => {
    const [ms, seq] = delta.split('-');
    at += Number(ms);
    return `${at}-${seq ?? '0'}`;
  });
}

interface ArchiveText {
  v: 1;
  fields: Record<string, string>;
  outputs?: Record<string, string>;
  ids: string[];
  types: string[];
  data: string[];
}

/** The archive as one compressed value. */
export function encodeArchive(archive: RunArchive): Buffer {
  const text: ArchiveText = { v: 1, fields: archive.fields, ...(archive.outputs ? { outputs: archive.outputs } : {}), ids: encodeIds(archive.events.map((e) => e.id)), types: archive.events.map((e) => e.type), data: archive.events.map((e) => e.data) };
  return compressArchiveText(Buffer.from(JSON.stringify(text)));
}

/**
 * An archive's JSON text (as encodeArchive writes it, or the compaction script) compressed. The
 * window is sized to the text (brotli's default, 4 MB, is set up for every call): on a 4 KB text
 * about 30% less CPU for the same bytes.
 */
export function compressArchiveText(json: Buffer): Buffer {
  const window = Math.min(Math.max(Math.ceil(Math.log2(Math.max(json.length, 1))), constants.BROTLI_MIN_WINDOW_BITS), constants.BROTLI_MAX_WINDOW_BITS);
  return brotliCompressSync(json, { params: { [constants.BROTLI_PARAM_QUALITY]: QUALITY, [constants.BROTLI_PARAM_LGWIN]: window, [constants.BROTLI_PARAM_SIZE_HINT]: json.length } });
}

export function decodeArchive(value: Buffer): RunArchive {
  const text = JSON.parse(brotliDecompressSync(value).toString('utf8')) as ArchiveText;
  if (text.v !== 1) throw new Error(`unknown run archive version ${String(text.v)}`);
  const ids = decodeIds(text.ids);
  return { fields: text.fields, events: ids.map((id, i) => ({ id, type: text.types[i] ?? 'message', data: text.data[i] ?? '{}' })), ...(text.outputs ? { outputs: text.outputs } : {}) };
}

/** The run's hash as readers see it: the archive's fields (if compacted) with the hash's own on top. One round trip. */
export async function readRunFields(redis: Redis, keys: RunKeys, runId: string): Promise<Record<string, string>> {
  // Sent one after the other, so in one round trip (an ioredis pipeline costs more: see KeyedPipeline).
  const [hash, archive] = await Promise.all([redis.hgetall(keys.run(runId)), redis.getBuffer(keys.archive(runId))]);
  if (!archive || !hash.id) return hash;
  return { ...decodeArchive(archive).fields, ...hash };
}

/** The run's stored outputs as readers see them: the archived ones with any written later on top. */
export async function readRunOutputs(redis: Redis, keys: RunKeys, runId: string): Promise<Record<string, string>> {
  const [hash, archive] = await Promise.all([redis.hgetall(keys.outputs(runId)), redis.getBuffer(keys.archive(runId))]);
  const { [OUTPUTS_TOMBSTONE]: _tombstone, ...outputs } = hash;
  return archive ? { ...decodeArchive(archive).outputs, ...outputs } : outputs;
}

/** The archive of a compacted run; null for a run not compacted (or gone). */
export async function readArchive(redis: Redis, keys: RunKeys, runId: string): Promise<RunArchive | null> {
  const value = await redis.getBuffer(keys.archive(runId));
  return value ? decodeArchive(value) : null;
}

/** Orders stream ids ("ms-seq") as Redis does. */
export function compareStreamIds(a: string, b: string): number {
  const [am = 0, as = 0] = a.split('-').map(Number);
  const [bm = 0, bs = 0] = b.split('-').map(Number);
  return am - bm || as - bs;
}

/**
 * Pages through one run's events from `after`, without waiting, whether or not the run has been
 * compacted: what an SSE client catches up on before it follows the live stream. Each read asks,
 * atomically (MULTI: the run's keys share a slot), whether an archive exists and what the stream
 * holds after `after`, so it never takes late events from the stream while earlier ones sit in the
 * archive. Once found, the archive is kept for the later pages.
 */
export function runEventPages(options: { redis: Redis; keys: RunKeys; runId: string; count?: number }): (after: string) => Promise<StreamEvent[]> {
  const { redis, keys, runId } = options;
  const key = keys.events(runId);
  const count = options.count ?? 500;
  let archived: RunArchive | null = null;
  return async (after) => {
    if (!archived) {
      const replies = (await redis.multi().getBuffer(keys.archive(runId)).xread('COUNT', count, 'STREAMS', key, after).exec()) ?? [];
      const value = replies[0]?.[1] as Buffer | null | undefined;
      if (!value) return toEvents(replies[1]?.[1]);
      archived = decodeArchive(value);
    }
    const fromArchive = archived.events.filter((event) => compareStreamIds(event.id, after) > 0).slice(0, count);
    if (fromArchive.length > 0) return fromArchive;
    // Past the archive: events appended after the run was compacted, if any.
    const last = archived.events.at(-1)?.id ?? '0';
    return toEvents(await redis.xread('COUNT', count, 'STREAMS', key, compareStreamIds(after, last) > 0 ? after : last));
  };
}

/**
 * The `done` event a run recorded (among the last events of its stream, or in its archive once
 * compacted), or null when it has none (yet). Ending a run writes it in the same step as the status.
 */
export async function findRunDone(redis: Redis, keys: RunKeys, runId: string): Promise<StreamEvent | null> {
  const recent = toStreamEvents((await redis.xrevrange(keys.events(runId), '+', '-', 'COUNT', 8)) as [string, string[]][]);
  const live = recent.find((event) => event.type === 'done');
  if (live) return live;
  const archive = await readArchive(redis, keys, runId);
  return archive?.events.findLast((event) => event.type === 'done') ?? null;
}

/** Every event of many runs, archived or not (one round trip per 50 runs); for reports and tests. */
export async function readRunHistories(redis: Redis, keys: RunKeys, runIds: readonly string[]): Promise<StreamEvent[][]> {
  const histories: StreamEvent[][] = [];
  for (let from = 0; from < runIds.length; from += 50) {
    const pipeline = new KeyedPipeline(redis);
    const ids = runIds.slice(from, from + 50);
    for (const runId of ids) {
      pipeline.on(keys.archive(runId)).getBuffer(keys.archive(runId));
      pipeline.on(keys.events(runId)).xrange(keys.events(runId), '-', '+');
    }
    const replies = await pipeline.execOrThrow();
    ids.forEach((_, i) => {
      const value = replies[2 * i] as Buffer | null | undefined;
      const live = toStreamEvents((replies[2 * i + 1] as [string, string[]][] | null | undefined) ?? []);
      histories.push([...(value ? decodeArchive(value).events : []), ...live]);
    });
  }
  return histories;
}

/** An XREAD reply of one stream as events. */
function toEvents(reply: unknown): StreamEvent[] {
  const streams = reply as [string, [string, string[]][]][] | null | undefined;
  return toStreamEvents(streams?.[0]?.[1] ?? []);
}
