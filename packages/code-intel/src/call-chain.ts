/**
 * ci_call_chain: who calls a function (and who calls those), and what it calls, a few calls deep.
 * From CKB's call graph when CKB is healthy, else from the local call graph; the answer carries
 * the same CKB metadata as graph-RAG (its `fusion_depth` is the depth walked).
 */
import path from 'node:path';
import { callChainArgsSchema, parseArgs, type CallChainArgs, type CallChainArgsInput } from './args.js';
import type { CkbApi, CkbClient } from './ckb/client.js';
import type { CodeIndex } from './code-index.js';
import { walkCalls, type CodeGraph, type SymbolRef } from './graph.js';
import { answerMetadata, type AnswerMetadata } from './metadata.js';

export interface ChainSymbol {
  name: string;
  kind?: string;
  container?: string;
  file: string;
  line: number;
}

export interface ChainStep extends ChainSymbol {
  /** Calls away from the symbol asked about. */
  depth: number;
  /** The neighbor one step nearer to the symbol asked about. */
  via: string;
}

export interface CallChainAnswer {
  symbol: string;
  definitions: ChainSymbol[];
  callers: ChainStep[];
  callees: ChainStep[];
  metadata: AnswerMetadata;
}

export class SymbolNotFoundError extends Error {
  override name = 'SymbolNotFoundError';
}

const asChainSymbol = (s: SymbolRef): ChainSymbol => ({ name: s.name, kind: s.kind, ...(s.container ? { container: s.container } : {}), file: s.file, line: s.line });

function splitName(symbol: string): { name: string; container?: string } {
  const dot = symbol.lastIndexOf('.');
  return dot > 0 ? { container: symbol.slice(0, dot), name: symbol.slice(dot + 1) } : { name: symbol };
}

function localChain(graph: CodeGraph, args: CallChainArgs): Omit<CallChainAnswer, 'metadata' | 'symbol'> {
  const { name, container } = splitName(args.symbol);
  const definitions = (graph.byName.get(name) ?? []).filter((s) => (!container || s.container === container) && (!args.file || s.file === args.file));
  const walk = (direction: 'callers' | 'callees'): ChainStep[] => {
    if (args.direction !== 'both' && args.direction !== direction) return [];
    const steps = new Map<string, ChainStep>();
    for (const definition of definitions) {
      for (const step of walkCalls(graph, definition.id, direction, args.depth)) {
        const symbol = graph.symbols.get(step.id);
        const via = graph.symbols.get(step.via);
        if (symbol && via && !steps.has(step.id)) steps.set(step.id, { ...asChainSymbol(symbol), depth: step.depth, via: via.name });
      }
    }
    return [...steps.values()];
  };
  return { definitions: definitions.map(asChainSymbol), callers: walk('callers'), callees: walk('callees') };
}

async function ckbChain(api: CkbApi, root: string, args: CallChainArgs): Promise<Omit<CallChainAnswer, 'metadata' | 'symbol'>> {
  const { name } = splitName(args.symbol);
  const local = (fileId: string) => (path.isAbsolute(fileId) ? path.relative(root, fileId) : fileId).split(path.sep).join('/');
  const matches = (await api.searchSymbols(name, 50)).filter((s) => s.name === name && s.location && (!args.file || local(s.location.fileId) === args.file));
  const definitions: ChainSymbol[] = [];
  const callers = new Map<string, ChainStep>();
  const callees = new Map<string, ChainStep>();
  for (const match of matches) {
    definitions.push({ name: match.name, ...(match.kind ? { kind: match.kind } : {}), file: local(match.location?.fileId ?? ''), line: match.location?.startLine ?? 0 });
    // CKB walks at most four calls deep.
    const graph = await api.callGraph(match.stableId, args.direction, Math.min(args.depth, 4));
    const nodes = new Map(graph.nodes.map((n) => [n.id, n]));
    for (const node of graph.nodes) {
      if (node.role !== 'caller' && node.role !== 'callee') continue;
      const depth = node.depth ?? 1;
      // The neighbor nearer the root: for a caller, whom it calls; for a callee, who calls it.
      const edge = graph.edges.find((e) => (node.role === 'caller' ? e.from === node.id : e.to === node.id) && (nodes.get(node.role === 'caller' ? e.to : e.from)?.depth ?? 0) < depth);
      const viaNode = edge && nodes.get(node.role === 'caller' ? edge.to : edge.from);
      const step: ChainStep = { name: node.name ?? node.id, ...(node.kind ? { kind: node.kind } : {}), file: local(node.location?.fileId ?? ''), line: node.location?.startLine ?? 0, depth, via: viaNode?.name ?? match.name };
      const into = node.role === 'caller' ? callers : callees;
      if (!into.has(node.id)) into.set(node.id, step);
    }
  }
  return { definitions, callers: [...callers.values()], callees: [...callees.values()] };
}

export async function callChain(index: CodeIndex, ckb: CkbClient, rawArgs: CallChainArgsInput | Record<string, unknown>): Promise<CallChainAnswer> {
  const args = parseArgs(callChainArgsSchema, rawArgs);
  const started = performance.now();
  await index.refresh();
  const opened = await ckb.open();
  let status = opened.status;
  let chain: Omit<CallChainAnswer, 'metadata' | 'symbol'> | undefined;
  if (opened.api) {
    try {
      chain = await ckbChain(opened.api, index.root, args);
    } catch (error) {
      status = ckb.fail(error);
    }
  }
  chain ??= localChain(index.graph, args);
  if (chain.definitions.length === 0) throw new SymbolNotFoundError(`No definition of '${args.symbol}'${args.file ? ` in ${args.file}` : ''} in the workspace`);
  return {
    symbol: args.symbol,
    ...chain,
    metadata: answerMetadata(status, { fusion_depth: args.depth, total_candidates: chain.callers.length + chain.callees.length, query_time_ms: Math.round(performance.now() - started) }),
  };
}
