/**
 * The local graph of a workspace: which file imports which (relative imports resolved to files),
 * and which definition calls which. A call by name is resolved to a definition in the same file
 * first, then in the files the caller imports, then to the one definition of that name in the
 * workspace; a name defined in several unrelated places stays unresolved rather than guessed.
 */
import type { FileAnalysis, Language, SymbolDef } from './analyze/index.js';
import { resolveImport } from './resolve.js';

export interface AnalyzedFile {
  path: string;
  language: Language;
  analysis: FileAnalysis;
}

export interface SymbolRef {
  /** `{file}:{line}:{name}`, stable while the file is unchanged. */
  id: string;
  file: string;
  name: string;
  kind: SymbolDef['kind'] | 'module';
  container?: string;
  line: number;
  endLine: number;
  exported: boolean;
}

export interface Location {
  file: string;
  line: number;
}

export interface CodeGraph {
  /** file → the workspace files it imports. */
  imports: Map<string, Set<string>>;
  /** file → the workspace files importing it. */
  importers: Map<string, Set<string>>;
  symbols: Map<string, SymbolRef>;
  byName: Map<string, SymbolRef[]>;
  byFile: Map<string, SymbolRef[]>;
  /** symbol id → ids of the symbols it calls. */
  callees: Map<string, Set<string>>;
  /** symbol id → ids of the symbols calling it. */
  callers: Map<string, Set<string>>;
  /** symbol id → places naming it from elsewhere: call sites and imports. */
  references: Map<string, Location[]>;
}

const push = <K, V>(map: Map<K, V[]>, key: K, value: V) => {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
};
const add = <K, V>(map: Map<K, Set<V>>, key: K, value: V) => {
  const set = map.get(key);
  if (set) set.add(value);
  else map.set(key, new Set([value]));
};

export function buildGraph(files: Iterable<AnalyzedFile>): CodeGraph {
  const list = [...files];
  const paths = new Set(list.map((f) => f.path));
  const graph: CodeGraph = { imports: new Map(), importers: new Map(), symbols: new Map(), byName: new Map(), byFile: new Map(), callees: new Map(), callers: new Map(), references: new Map() };
  const importedNames = new Map<string, { to: string; names: string[]; line: number }[]>();

  for (const file of list) {
    const moduleSymbol: SymbolRef = { id: `${file.path}:1:<module>`, file: file.path, name: '<module>', kind: 'module', line: 1, endLine: 1, exported: false };
    graph.symbols.set(moduleSymbol.id, moduleSymbol);
    for (const def of file.analysis.symbols) {
      const ref: SymbolRef = { id: `${file.path}:${def.line}:${def.name}`, file: file.path, name: def.name, kind: def.kind, line: def.line, endLine: def.endLine, exported: def.exported, ...(def.container ? { container: def.container } : {}) };
      graph.symbols.set(ref.id, ref);
      push(graph.byName, def.name, ref);
      push(graph.byFile, file.path, ref);
    }
    for (const ref of file.analysis.imports) {
      for (const target of resolveImport(file.path, file.language, ref, paths)) {
        if (target === file.path) continue;
        add(graph.imports, file.path, target);
        add(graph.importers, target, file.path);
        push(importedNames, file.path, { to: target, names: ref.names, line: ref.line });
      }
    }
  }

  const resolveCall = (file: string, name: string): SymbolRef | undefined => {
    const candidates = graph.byName.get(name);
    if (!candidates?.length) return undefined;
    const local = candidates.find((c) => c.file === file);
    if (local) return local;
    const imported = graph.imports.get(file);
    const viaImport = imported && candidates.filter((c) => imported.has(c.file));
    if (viaImport?.length === 1) return viaImport[0];
    return candidates.length === 1 ? candidates[0] : undefined;
  };

  for (const file of list) {
    const callers: [string, string[], number][] = [[`${file.path}:1:<module>`, file.analysis.moduleCalls, 1], ...file.analysis.symbols.map((s): [string, string[], number] => [`${file.path}:${s.line}:${s.name}`, s.calls, s.line])];
    for (const [callerId, calls, line] of callers) {
      for (const name of calls) {
        const callee = resolveCall(file.path, name);
        if (!callee || callee.id === callerId) continue;
        add(graph.callees, callerId, callee.id);
        add(graph.callers, callee.id, callerId);
        if (callee.file !== file.path) push(graph.references, callee.id, { file: file.path, line });
      }
    }
    for (const edge of importedNames.get(file.path) ?? []) {
      for (const name of edge.names) {
        const target = graph.byFile.get(edge.to)?.find((s) => s.name === name);
        if (target) push(graph.references, target.id, { file: file.path, line: edge.line });
      }
    }
  }
  return graph;
}

/** Files one import away, in either direction. */
export function importNeighbors(graph: CodeGraph, file: string): string[] {
  return [...new Set([...(graph.imports.get(file) ?? []), ...(graph.importers.get(file) ?? [])])];
}

/** Walks the call graph from a symbol, breadth first, up to `depth` calls away. */
export function walkCalls(graph: CodeGraph, start: string, direction: 'callers' | 'callees', depth: number): { id: string; depth: number; via: string }[] {
  const edges = direction === 'callers' ? graph.callers : graph.callees;
  const seen = new Set([start]);
  const out: { id: string; depth: number; via: string }[] = [];
  let frontier = [start];
  for (let level = 1; level <= depth && frontier.length; level += 1) {
    const next: string[] = [];
    for (const id of frontier) {
      for (const neighbor of edges.get(id) ?? []) {
        if (seen.has(neighbor)) continue;
        seen.add(neighbor);
        out.push({ id: neighbor, depth: level, via: id });
        next.push(neighbor);
      }
    }
    frontier = next;
  }
  return out;
}
