/** What the index knows of one source file besides its text. */
export type Language = 'typescript' | 'javascript' | 'python';

export interface SymbolDef {
  name: string;
  kind: 'function' | 'method' | 'class' | 'variable';
  /** The class or object a method belongs to. */
  container?: string;
  /** 1-based, inclusive. */
  line: number;
  endLine: number;
  exported: boolean;
  /** Names called (or passed as callbacks) in the body, unresolved. */
  calls: string[];
}

export interface ImportRef {
  /** As written: "./lib/retry.js", "..utils", "analytics.report". */
  specifier: string;
  /** Names imported; empty for a side-effect or whole-module import. */
  names: string[];
  line: number;
}

export interface FileAnalysis {
  imports: ImportRef[];
  symbols: SymbolDef[];
  /** Calls at module level, outside any definition. */
  moduleCalls: string[];
}
