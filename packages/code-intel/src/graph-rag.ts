/**
 * ci_graph_rag: vector and keyword candidates fused by reciprocal rank, expanded `fusion_depth`
 * hops over the code graph, trimmed to the token budget. The graph is CKB's call graph and
 * references when CKB is healthy, else the local import graph (seed 001's fallback). Depth 0 is
 * vector search alone: no keywords, no graph.
 */
import path from 'node:path';
import { parseArgs, graphRagArgsSchema, type GraphRagArgsInput } from './args.js';
import type { CkbApi, CkbClient, CkbStatus } from './ckb/client.js';
import type { CodeIndex, IndexedChunk } from './code-index.js';
import { cosine } from './embed.js';
import { byScore, expandOverGraph, rankFiles, reciprocalRankFusion, trimToBudget } from './fusion.js';
import { importNeighbors } from './graph.js';
import { answerMetadata, type AnswerMetadata } from './metadata.js';

export interface GraphRagCandidate {
  file: string;
  /** Score relative to the best candidate: 1 for the best, towards 0 for the weakest. */
  relevance: number;
  content: string;
}

export interface GraphRagAnswer {
  candidates: GraphRagCandidate[];
  metadata: AnswerMetadata;
}

/** Chunks each search looks at, before they are grouped by file. */
const POOL_CHUNKS = 200;
/**
 * Files each ranked list brings to the fusion: twice what is asked for. Fusing whole lists would
 * give every file in the workspace nearly the same reciprocal-rank score (1/61 … 1/85 for 25
 * files), leaving the graph nothing to say; the top of each list is what a retriever vouches for.
 * A file one hop from the best hit then scores about as a file one retriever alone ranked first.
 */
const poolFiles = (topK: number) => Math.max(10, 2 * topK);
/** Files each hop expands from, so that a deep expansion stays bounded. */
const FANOUT = 10;
/** A file's definitions asked of CKB (exported first): enough to find its main relations. */
const SYMBOLS_PER_FILE = 3;

const round = (n: number, digits = 3) => Math.round(n * 10 ** digits) / 10 ** digits;

/** Neighbors of a file by CKB: files of the callers, callees and references of its main definitions. */
function ckbNeighbors(api: CkbApi, index: CodeIndex): (file: string) => Promise<string[]> {
  const cache = new Map<string, Promise<string[]>>();
  const local = (fileId: string) => (path.isAbsolute(fileId) ? path.relative(index.root, fileId) : fileId).split(path.sep).join('/');
  const lookup = async (file: string): Promise<string[]> => {
    const symbols = (index.graph.byFile.get(file) ?? [])
      .filter((s) => !s.container)
      .sort((a, b) => Number(b.exported) - Number(a.exported) || a.line - b.line)
      .slice(0, SYMBOLS_PER_FILE);
    const found = new Set<string>();
    await Promise.all(
      symbols.map(async (symbol) => {
        const match = (await api.searchSymbols(symbol.name, 20)).find((s) => s.name === symbol.name && s.location && local(s.location.fileId) === file);
        if (!match) return;
        const [calls, references] = await Promise.all([api.callGraph(match.stableId, 'both', 1), api.references(match.stableId, 100)]);
        for (const node of calls.nodes) if (node.location) found.add(local(node.location.fileId));
        for (const reference of references) found.add(local(reference.fileId));
      }),
    );
    found.delete(file);
    return [...found].filter((f) => index.hasFile(f)).sort();
  };
  return (file) => {
    let pending = cache.get(file);
    if (!pending) cache.set(file, (pending = lookup(file)));
    return pending;
  };
}

function bestChunk(index: CodeIndex, file: string, vector: Float32Array): IndexedChunk | undefined {
  let best: { chunk: IndexedChunk; score: number } | undefined;
  for (const chunk of index.chunksOf(file)) {
    const score = cosine(vector, chunk.vector);
    if (!best || score > best.score) best = { chunk, score };
  }
  return best?.chunk;
}

export async function graphRag(index: CodeIndex, ckb: CkbClient, rawArgs: GraphRagArgsInput | Record<string, unknown>): Promise<GraphRagAnswer> {
  const args = parseArgs(graphRagArgsSchema, rawArgs);
  const started = performance.now();
  await index.refresh();
  const vector = await index.embedQuery(args.query);
  const byVector = rankFiles(index.vectorSearch(vector, POOL_CHUNKS));

  let status: CkbStatus;
  let ranked: { file: string; score: number; chunk?: IndexedChunk }[];
  if (args.fusion_depth === 0) {
    // No graph to walk, but the answer still says whether CKB could have been used.
    ({ status } = await ckb.open());
    ranked = byVector;
  } else {
    const pool = poolFiles(args.top_k);
    const fused = reciprocalRankFusion([byVector.slice(0, pool), rankFiles(index.keywordSearch(args.query, POOL_CHUNKS)).slice(0, pool)]);
    const seeds = new Map(fused.slice(0, args.top_k).map((f) => [f.file, f.score]));
    const localNeighbors = async (file: string) => importNeighbors(index.graph, file);
    const opened = await ckb.open();
    status = opened.status;
    let boost: Map<string, number>;
    if (opened.api) {
      try {
        boost = await expandOverGraph(seeds, args.fusion_depth, ckbNeighbors(opened.api, index), FANOUT);
      } catch (error) {
        status = ckb.fail(error);
        boost = await expandOverGraph(seeds, args.fusion_depth, localNeighbors, FANOUT);
      }
    } else {
      boost = await expandOverGraph(seeds, args.fusion_depth, localNeighbors, FANOUT);
    }
    // A file counts by its best evidence, direct or through the graph; adding them up instead
    // lets hub files that touch every hit crowd out the hits themselves.
    const scores = new Map<string, { file: string; score: number; chunk?: IndexedChunk }>(fused.map((f) => [f.file, { ...f }]));
    for (const [file, reached] of boost) {
      const known = scores.get(file);
      if (known) known.score = Math.max(known.score, reached);
      else scores.set(file, { file, score: reached });
    }
    ranked = [...scores.values()].sort(byScore);
  }

  const top = ranked[0]?.score ?? 0;
  const candidates: GraphRagCandidate[] = [];
  for (const entry of ranked.slice(0, args.top_k)) {
    const chunk = entry.chunk ?? bestChunk(index, entry.file, vector);
    if (!chunk) continue;
    candidates.push({ file: entry.file, relevance: top > 0 ? round(entry.score / top) : 0, content: chunk.text });
  }
  return {
    candidates: trimToBudget(candidates, args.budget),
    metadata: answerMetadata(status, { fusion_depth: args.fusion_depth, total_candidates: ranked.length, query_time_ms: Math.round(performance.now() - started) }),
  };
}
