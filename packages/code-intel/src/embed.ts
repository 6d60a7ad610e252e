/**
 * Embeddings for vector search. The default needs no model and no download: feature hashing of a
 * chunk's stemmed words and of the character trigrams of its words into a fixed-size vector. That
 * is lexical-semantic, not a neural model: it matches shared words and word parts ("authenticate"
 * ~ "authentication", "retry" ~ "retries"), not synonyms. An OpenAI-compatible embedding endpoint
 * can be configured instead for real semantic vectors.
 */
import { z } from 'zod';
import { splitWords, terms } from './tokens.js';

export interface Embedder {
  /** Names the vector space: an index built with another embedder is rebuilt. */
  readonly id: string;
  embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]>;
}

export interface HashedEmbedderOptions {
  /** Vector length. Default 1024. */
  dimensions?: number;
  /** Weight of a character trigram relative to a whole word. Default 0.35. */
  trigramWeight?: number;
}

/** FNV-1a, 32 bits: fast, and stable across processes and platforms. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

function normalize(vector: Float32Array): Float32Array {
  let norm = 0;
  for (const value of vector) norm += value * value;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < vector.length; i += 1) vector[i] = (vector[i] ?? 0) / norm;
  return vector;
}

export function createHashedEmbedder(options: HashedEmbedderOptions = {}): Embedder {
  const dimensions = options.dimensions ?? 1024;
  const trigramWeight = options.trigramWeight ?? 0.35;
  const embedOne = (text: string): Float32Array => {
    const counts = new Map<string, number>();
    const bump = (feature: string, weight: number) => counts.set(feature, (counts.get(feature) ?? 0) + weight);
    for (const term of terms(text)) bump(`w:${term}`, 1);
    for (const word of splitWords(text)) {
      const padded = `^${word}$`;
      for (let i = 0; i + 3 <= padded.length; i += 1) bump(`t:${padded.slice(i, i + 3)}`, trigramWeight);
    }
    const vector = new Float32Array(dimensions);
    for (const [feature, count] of counts) {
      const hash = fnv1a(feature);
      // The sign bit spreads collisions around zero instead of piling them up.
      const sign = hash & 0x80000000 ? -1 : 1;
      // Sublinear: a word repeated ten times is not ten times the evidence.
      vector[hash % dimensions] = (vector[hash % dimensions] ?? 0) + sign * Math.log1p(count);
    }
    return normalize(vector);
  };
  return { id: `hashed-v1-${dimensions}-${trigramWeight}`, embed: async (texts) => texts.map(embedOne) };
}

export interface EndpointEmbedderOptions {
  /** Base URL of an OpenAI-compatible API, e.g. http://127.0.0.1:11434/v1 (POST {url}/embeddings). */
  url: string;
  model: string;
  apiKey?: string;
  /** Texts per request. Default 64. */
  batchSize?: number;
  /** Per-request timeout. Default 30000. */
  timeoutMs?: number;
}

const embeddingsReply = z.object({
  data: z.array(z.object({ index: z.number().int().min(0), embedding: z.array(z.number()) })),
});

export class EmbeddingError extends Error {
  override name = 'EmbeddingError';
}

export function createEndpointEmbedder(options: EndpointEmbedderOptions): Embedder {
  const endpoint = `${options.url.replace(/\/+$/, '')}/embeddings`;
  const batchSize = options.batchSize ?? 64;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const embedBatch = async (input: string[], signal?: AbortSignal): Promise<Float32Array[]> => {
    const timeout = AbortSignal.timeout(timeoutMs);
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}) },
      body: JSON.stringify({ model: options.model, input }),
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    }).catch((error: unknown) => {
      throw new EmbeddingError(`embedding endpoint ${endpoint} unreachable: ${error instanceof Error ? error.message : String(error)}`);
    });
    if (!response.ok) throw new EmbeddingError(`embedding endpoint ${endpoint} answered ${response.status}: ${(await response.text()).slice(0, 200)}`);
    const parsed = embeddingsReply.safeParse(await response.json());
    if (!parsed.success || parsed.data.data.length !== input.length) throw new EmbeddingError(`embedding endpoint ${endpoint} answered an unexpected shape`);
    const vectors: Float32Array[] = new Array(input.length);
    for (const item of parsed.data.data) vectors[item.index] = normalize(Float32Array.from(item.embedding));
    return vectors;
  };
  return {
    id: `endpoint:${options.url}:${options.model}`,
    embed: async (texts, signal) => {
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += batchSize) out.push(...(await embedBatch(texts.slice(i, i + batchSize), signal)));
      return out;
    },
  };
}

/** Dot product of two unit vectors: their cosine similarity. */
export function cosine(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i += 1) sum += (a[i] ?? 0) * (b[i] ?? 0);
  return sum;
}
