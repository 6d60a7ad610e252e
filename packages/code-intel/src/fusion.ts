/**
 * The ranking steps of graph-RAG, free of I/O: chunks to files, reciprocal rank fusion, graph
 * expansion and the token budget.
 */
import type { IndexedChunk, ScoredChunk } from './code-index.js';
import { estimateTokens } from './tokens.js';

export interface RankedFile {
  file: string;
  score: number;
  /** The file's best chunk for the query. */
  chunk: IndexedChunk;
}

/** Reciprocal rank fusion's constant (Cormack et al.): damps the weight of the very top ranks. */
export const RRF_K = 60;
/** Each hop over the graph passes on this share of the score of the file it starts from. */
export const HOP_DECAY = 0.5;

/** Files in the order of their best chunk, each with that chunk. */
export function rankFiles(chunks: readonly ScoredChunk[]): RankedFile[] {
  const byFile = new Map<string, RankedFile>();
  for (const { chunk, score } of chunks) if (!byFile.has(chunk.file)) byFile.set(chunk.file, { file: chunk.file, score, chunk });
  return [...byFile.values()];
}

/** Σ 1/(k + rank) over the lists a file appears in (rank from 1). */
export function reciprocalRankFusion(lists: readonly (readonly RankedFile[])[], k = RRF_K): RankedFile[] {
  const fused = new Map<string, RankedFile>();
  for (const list of lists) {
    list.forEach((entry, index) => {
      const known = fused.get(entry.file);
      const add = 1 / (k + index + 1);
      if (known) known.score += add;
      else fused.set(entry.file, { file: entry.file, chunk: entry.chunk, score: add });
    });
  }
  return [...fused.values()].sort(byScore);
}

export const byScore = (a: { score: number; file: string }, b: { score: number; file: string }) => b.score - a.score || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0);

/**
 * Spreads scores `depth` hops over the graph from the seeds: a file reached gets the score of the
 * file it was reached from times HOP_DECAY per hop, the best such path counting. Each hop starts
 * from at most `fanout` files, the best first.
 */
export async function expandOverGraph(
  seeds: ReadonlyMap<string, number>,
  depth: number,
  neighbors: (file: string) => Promise<readonly string[]>,
  fanout: number,
): Promise<Map<string, number>> {
  const boost = new Map<string, number>();
  const visited = new Set(seeds.keys());
  let frontier = [...seeds.entries()];
  for (let hop = 1; hop <= depth && frontier.length; hop += 1) {
    frontier.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    const from = frontier.slice(0, fanout);
    const reached = await Promise.all(from.map(async ([file, score]) => ({ score, files: await neighbors(file) })));
    const next = new Map<string, number>();
    for (const { score, files } of reached) {
      const passed = score * HOP_DECAY;
      for (const file of files) {
        boost.set(file, Math.max(boost.get(file) ?? 0, passed));
        if (!visited.has(file)) next.set(file, Math.max(next.get(file) ?? 0, passed));
      }
    }
    for (const file of next.keys()) visited.add(file);
    frontier = [...next.entries()];
  }
  return boost;
}

/** Keeps candidates, best first, while their content fits the budget; the last one may be cut short. */
export function trimToBudget<T extends { content: string }>(candidates: readonly T[], budget: number): T[] {
  const kept: T[] = [];
  let remaining = budget;
  for (const candidate of candidates) {
    if (remaining <= 0) break;
    const tokens = estimateTokens(candidate.content);
    if (tokens <= remaining) {
      kept.push(candidate);
      remaining -= tokens;
    } else {
      kept.push({ ...candidate, content: `${candidate.content.slice(0, Math.max(0, remaining * 4 - 1))}…` });
      remaining = 0;
    }
  }
  return kept;
}
