/**
 * Code intelligence over one workspace: the index, the CKB connection, and the three operations
 * the bridge and the CLI offer (graph-RAG, search, call chains).
 */
import { callChain, type CallChainAnswer } from './call-chain.js';
import type { CallChainArgsInput, GraphRagArgsInput, SearchArgsInput } from './args.js';
import { CkbClient } from './ckb/client.js';
import type { Clock } from './clock.js';
import { CodeIndex, type CodeIndexOptions } from './code-index.js';
import { embeddingSchema, type CkbIntegrationInput, type EmbeddingConfig } from './config.js';
import { createEndpointEmbedder, createHashedEmbedder, type Embedder } from './embed.js';
import { graphRag, type GraphRagAnswer } from './graph-rag.js';
import { searchCode, type SearchAnswer } from './search.js';

export interface CodeIntelOptions extends Omit<CodeIndexOptions, 'embedder'> {
  /** Seed 001's ckb_integration. Default: none, which answers `disabled`. */
  ckb?: CkbIntegrationInput;
  /** Which vectors to make. Default: the hashed embedder (no model). Ignored when `embedder` is given. */
  embedding?: EmbeddingConfig;
  /** An embedder of your own, e.g. for tests. */
  embedder?: Embedder;
  /** Time for the index's rescans and CKB's cooldown. Default: the system clock. */
  clock?: Clock;
}

export interface CodeIntel {
  readonly index: CodeIndex;
  readonly ckb: CkbClient;
  graphRag(args: GraphRagArgsInput | Record<string, unknown>): Promise<GraphRagAnswer>;
  search(args: SearchArgsInput | Record<string, unknown>): Promise<SearchAnswer>;
  callChain(args: CallChainArgsInput | Record<string, unknown>): Promise<CallChainAnswer>;
  /** Ends the CKB connection (and its child process). */
  close(): Promise<void>;
}

export function embedderFor(config: EmbeddingConfig | undefined): Embedder {
  const parsed = config ? embeddingSchema.parse(config) : undefined;
  if (parsed?.provider === 'openai-compatible') return createEndpointEmbedder({ url: parsed.url, model: parsed.model, ...(parsed.api_key ? { apiKey: parsed.api_key } : {}) });
  return createHashedEmbedder(parsed?.dimensions ? { dimensions: parsed.dimensions } : {});
}

export function createCodeIntel(options: CodeIntelOptions): CodeIntel {
  const index = new CodeIndex({ ...options, embedder: options.embedder ?? embedderFor(options.embedding) });
  const ckb = new CkbClient(options.ckb, { root: index.root, ...(options.clock ? { clock: options.clock } : {}) });
  return {
    index,
    ckb,
    graphRag: (args) => graphRag(index, ckb, args),
    search: (args) => searchCode(index, args),
    callChain: (args) => callChain(index, ckb, args),
    close: () => ckb.close(),
  };
}
