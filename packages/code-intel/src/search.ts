/**
 * ci_search: chunks of code by keywords (BM25), by vector, or both fused by reciprocal rank.
 * Unlike graph-RAG it answers chunks with their lines, not files, and never walks the graph.
 */
import { parseArgs, searchArgsSchema, type SearchArgsInput } from './args.js';
import type { CodeIndex, ScoredChunk } from './code-index.js';
import { RRF_K } from './fusion.js';

export interface SearchHit {
  file: string;
  start_line: number;
  end_line: number;
  /** BM25 score (keyword), cosine similarity (vector) or fused reciprocal-rank score (hybrid). */
  score: number;
  content: string;
}

export interface SearchAnswer {
  results: SearchHit[];
  mode: 'hybrid' | 'keyword' | 'vector';
  /** Chunks that matched at all, before top_k. */
  total: number;
  query_time_ms: number;
}

const POOL = 500;

function fuse(lists: ScoredChunk[][]): ScoredChunk[] {
  const fused = new Map<string, ScoredChunk>();
  for (const list of lists) {
    list.forEach(({ chunk }, index) => {
      const known = fused.get(chunk.id);
      if (known) known.score += 1 / (RRF_K + index + 1);
      else fused.set(chunk.id, { chunk, score: 1 / (RRF_K + index + 1) });
    });
  }
  return [...fused.values()].sort((a, b) => b.score - a.score || (a.chunk.id < b.chunk.id ? -1 : 1));
}

export async function searchCode(index: CodeIndex, rawArgs: SearchArgsInput | Record<string, unknown>): Promise<SearchAnswer> {
  const args = parseArgs(searchArgsSchema, rawArgs);
  const started = performance.now();
  await index.refresh();
  const inScope = (hits: ScoredChunk[]) => (args.path_prefix ? hits.filter((hit) => hit.chunk.file.startsWith(args.path_prefix as string)) : hits);
  const keyword = () => inScope(index.keywordSearch(args.query, POOL));
  const vector = async () => inScope(index.vectorSearch(await index.embedQuery(args.query), POOL));
  const hits = args.mode === 'keyword' ? keyword() : args.mode === 'vector' ? await vector() : fuse([await vector(), keyword()]);
  return {
    results: hits.slice(0, args.top_k).map(({ chunk, score }) => ({ file: chunk.file, start_line: chunk.startLine, end_line: chunk.endLine, score: Math.round(score * 10_000) / 10_000, content: chunk.text })),
    mode: args.mode,
    total: hits.length,
    query_time_ms: Math.round(performance.now() - started),
  };
}
