/**
 * The index on disk: one JSON snapshot per workspace under the data folder, named by a hash of
 * the workspace's path, so a restart (or the next CLI run) only reads the files that changed.
 * Written to a temporary file and renamed, so a reader never sees half a snapshot; a snapshot
 * that does not parse, or was made by another embedder or version, is ignored and rebuilt.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';

const SNAPSHOT_VERSION = 1;

const symbolSchema = z.object({
  name: z.string(),
  kind: z.enum(['function', 'method', 'class', 'variable']),
  container: z.string().optional(),
  line: z.number().int(),
  endLine: z.number().int(),
  exported: z.boolean(),
  calls: z.array(z.string()),
});

const storedFileSchema = z.object({
  path: z.string(),
  language: z.enum(['typescript', 'javascript', 'python']),
  mtimeMs: z.number(),
  size: z.number(),
  hash: z.string(),
  analysis: z.object({
    imports: z.array(z.object({ specifier: z.string(), names: z.array(z.string()), line: z.number().int() })),
    symbols: z.array(symbolSchema),
    moduleCalls: z.array(z.string()),
  }),
  chunks: z.array(z.object({ startLine: z.number().int(), endLine: z.number().int(), text: z.string(), vector: z.string() })),
});
export type StoredFile = z.infer<typeof storedFileSchema>;

const snapshotSchema = z.object({
  version: z.literal(SNAPSHOT_VERSION),
  root: z.string(),
  embedder: z.string(),
  files: z.array(storedFileSchema),
});

export const encodeVector = (vector: Float32Array): string => Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString('base64');
export function decodeVector(text: string): Float32Array {
  const bytes = Buffer.from(text, 'base64');
  // Copied so the floats are aligned whatever offset Node's buffer pool gave the bytes.
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}

export function snapshotPath(dataDir: string, root: string): string {
  return path.join(dataDir, `index-${createHash('sha256').update(path.resolve(root)).digest('hex').slice(0, 16)}.json`);
}

export async function loadSnapshot(file: string, expected: { root: string; embedder: string }): Promise<StoredFile[] | undefined> {
  let raw: string;
  try {
    raw = await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const parsed = snapshotSchema.safeParse(JSON.parse(raw));
    if (!parsed.success || parsed.data.root !== expected.root || parsed.data.embedder !== expected.embedder) return undefined;
    return parsed.data.files;
  } catch {
    return undefined;
  }
}

export async function saveSnapshot(file: string, snapshot: { root: string; embedder: string; files: StoredFile[] }): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(temporary, JSON.stringify({ version: SNAPSHOT_VERSION, ...snapshot }));
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
