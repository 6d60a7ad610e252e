/**
 * The index of one workspace: its source files in chunks, a BM25 index (MiniSearch) and a vector
 * per chunk, and the import and call graph. Built on first use and refreshed on demand: a refresh
 * lists the files, re-reads only those whose size or mtime moved, and re-embeds only those whose
 * content really changed. Persisted as a snapshot under the data folder.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import MiniSearch from 'minisearch';
import { analyze } from './analyze/index.js';
import { chunkFile, type Chunk, type ChunkOptions } from './chunk.js';
import { systemClock, type Clock } from './clock.js';
import { cosine, createHashedEmbedder, type Embedder } from './embed.js';
import { listSourceFiles, type WalkOptions } from './files.js';
import { buildGraph, type CodeGraph } from './graph.js';
import { decodeVector, encodeVector, loadSnapshot, saveSnapshot, snapshotPath, type StoredFile } from './store.js';
import { splitWords, termOf } from './tokens.js';

export interface IndexedChunk extends Chunk {
  vector: Float32Array;
}

interface FileEntry extends Omit<StoredFile, 'chunks'> {
  chunks: IndexedChunk[];
}

export interface ScoredChunk {
  chunk: IndexedChunk;
  score: number;
}

export interface RefreshStats {
  files: number;
  chunks: number;
  /** Files read and (re)indexed by this refresh. */
  indexed: number;
  removed: number;
  ms: number;
}

export interface CodeIndexOptions {
  /** The workspace directory. */
  root: string;
  /** Where the snapshot is kept; null keeps the index in memory only. Default `<root>/.data/code-intel`. */
  dataDir?: string | null;
  /** Default: the hashed (no-model) embedder. */
  embedder?: Embedder;
  /** A refresh asked for within this many ms of the last one is skipped. Default 1000. */
  rescanAfterMs?: number;
  chunking?: ChunkOptions;
  walk?: WalkOptions;
  clock?: Clock;
}

interface ChunkDoc {
  id: string;
  text: string;
  path: string;
  symbols: string;
}

const newKeywordIndex = () =>
  new MiniSearch<ChunkDoc>({
    fields: ['text', 'path', 'symbols'],
    storeFields: [],
    tokenize: (text) => splitWords(text),
    processTerm: termOf,
    searchOptions: { boost: { symbols: 2, path: 1.5 }, combineWith: 'OR' },
  });

const embeddingText = (chunk: Chunk) => `${chunk.file}\n${chunk.text}`;

export class CodeIndex {
  readonly root: string;
  readonly embedder: Embedder;
  readonly #options: CodeIndexOptions;
  readonly #clock: Clock;
  readonly #snapshot: string | undefined;
  readonly #files = new Map<string, FileEntry>();
  readonly #chunks = new Map<string, IndexedChunk>();
  #keywords = newKeywordIndex();
  #graph: CodeGraph = buildGraph([]);
  #loaded = false;
  #lastRefresh = Number.NEGATIVE_INFINITY;
  #inflight: Promise<RefreshStats> | undefined;
  #lastStats: RefreshStats = { files: 0, chunks: 0, indexed: 0, removed: 0, ms: 0 };

  constructor(options: CodeIndexOptions) {
    this.root = path.resolve(options.root);
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.embedder = options.embedder ?? createHashedEmbedder();
    const dataDir = options.dataDir === undefined ? path.join(this.root, '.data', 'code-intel') : options.dataDir;
    this.#snapshot = dataDir === null ? undefined : snapshotPath(dataDir, this.root);
  }

  get graph(): CodeGraph {
    return this.#graph;
  }

  get fileCount(): number {
    return this.#files.size;
  }

  hasFile(file: string): boolean {
    return this.#files.has(file);
  }

  chunksOf(file: string): readonly IndexedChunk[] {
    return this.#files.get(file)?.chunks ?? [];
  }

  /**
   * Brings the index up to date with the workspace. Calls made while one runs share it; calls
   * within `rescanAfterMs` of the last one return at once unless `force` is set.
   */
  refresh(options: { force?: boolean } = {}): Promise<RefreshStats> {
    if (this.#inflight) return this.#inflight;
    if (!options.force && this.#clock.now() - this.#lastRefresh < (this.#options.rescanAfterMs ?? 1000)) return Promise.resolve(this.#lastStats);
    this.#inflight = this.#refresh().finally(() => {
      this.#inflight = undefined;
    });
    return this.#inflight;
  }

  async #refresh(): Promise<RefreshStats> {
    const started = performance.now();
    let changed = false;
    if (!this.#loaded) {
      changed = !(await this.#load());
      this.#loaded = true;
    }
    const listing = await listSourceFiles(this.root, this.#options.walk);
    const present = new Set(listing.map((f) => f.path));
    const removed = [...this.#files.keys()].filter((file) => !present.has(file));
    const fresh: FileEntry[] = [];
    for (const file of listing) {
      const known = this.#files.get(file.path);
      if (known && known.mtimeMs === file.mtimeMs && known.size === file.size) continue;
      const text = await readFile(path.join(this.root, file.path), 'utf8').catch(() => undefined);
      if (text === undefined) {
        if (known) removed.push(file.path);
        continue;
      }
      const hash = createHash('sha1').update(text).digest('hex');
      changed = true;
      if (known?.hash === hash) {
        known.mtimeMs = file.mtimeMs;
        continue;
      }
      const chunks = chunkFile(file.path, text, this.#options.chunking).map((c) => ({ ...c, vector: new Float32Array(0) }));
      fresh.push({ path: file.path, language: file.language, mtimeMs: file.mtimeMs, size: file.size, hash, analysis: await analyze(file.path, file.language, text), chunks });
    }
    const vectors = await this.embedder.embed(fresh.flatMap((entry) => entry.chunks.map(embeddingText)));
    let next = 0;
    for (const entry of fresh) for (const chunk of entry.chunks) chunk.vector = vectors[next++] ?? new Float32Array(0);

    for (const file of removed) this.#drop(file);
    for (const entry of fresh) {
      this.#drop(entry.path);
      this.#put(entry);
    }
    if (removed.length || fresh.length) this.#graph = buildGraph(this.#files.values());
    if (changed || removed.length) await this.#save();
    this.#lastRefresh = this.#clock.now();
    this.#lastStats = { files: this.#files.size, chunks: this.#chunks.size, indexed: fresh.length, removed: removed.length, ms: Math.round(performance.now() - started) };
    return this.#lastStats;
  }

  #drop(file: string): void {
    const entry = this.#files.get(file);
    if (!entry) return;
    for (const chunk of entry.chunks) {
      this.#chunks.delete(chunk.id);
      this.#keywords.discard(chunk.id);
    }
    this.#files.delete(file);
  }

  #put(entry: FileEntry): void {
    this.#files.set(entry.path, entry);
    const docs: ChunkDoc[] = [];
    for (const chunk of entry.chunks) {
      this.#chunks.set(chunk.id, chunk);
      const symbols = entry.analysis.symbols.filter((s) => s.line >= chunk.startLine && s.line <= chunk.endLine).map((s) => s.name);
      docs.push({ id: chunk.id, text: chunk.text, path: chunk.file, symbols: symbols.join(' ') });
    }
    this.#keywords.addAll(docs);
  }

  /** Reads the snapshot; false when there was none to use. */
  async #load(): Promise<boolean> {
    if (!this.#snapshot) return false;
    const stored = await loadSnapshot(this.#snapshot, { root: this.root, embedder: this.embedder.id });
    if (!stored) return false;
    for (const file of stored) {
      const chunks = file.chunks.map((c, i) => ({ id: `${file.path}#${i}`, file: file.path, startLine: c.startLine, endLine: c.endLine, text: c.text, vector: decodeVector(c.vector) }));
      this.#put({ ...file, chunks });
    }
    this.#graph = buildGraph(this.#files.values());
    return true;
  }

  async #save(): Promise<void> {
    if (!this.#snapshot) return;
    const files: StoredFile[] = [...this.#files.values()].map((entry) => ({
      ...entry,
      chunks: entry.chunks.map((c) => ({ startLine: c.startLine, endLine: c.endLine, text: c.text, vector: encodeVector(c.vector) })),
    }));
    await saveSnapshot(this.#snapshot, { root: this.root, embedder: this.embedder.id, files });
  }

  async embedQuery(query: string, signal?: AbortSignal): Promise<Float32Array> {
    const [vector] = await this.embedder.embed([query], signal);
    return vector ?? new Float32Array(0);
  }

  /** Chunks by cosine similarity to the query vector, best first. */
  vectorSearch(vector: Float32Array, limit: number): ScoredChunk[] {
    const scored: ScoredChunk[] = [];
    for (const chunk of this.#chunks.values()) {
      const score = cosine(vector, chunk.vector);
      if (score > 0) scored.push({ chunk, score });
    }
    return scored.sort((a, b) => b.score - a.score || (a.chunk.id < b.chunk.id ? -1 : 1)).slice(0, limit);
  }

  /** Chunks by BM25 over their text, path and the names they define, best first. */
  keywordSearch(query: string, limit: number): ScoredChunk[] {
    const out: ScoredChunk[] = [];
    for (const hit of this.#keywords.search(query)) {
      const chunk = this.#chunks.get(String(hit.id));
      if (chunk) out.push({ chunk, score: hit.score });
      if (out.length >= limit) break;
    }
    return out;
  }
}
