/** Which files the index reads, and what it learns from each. */
import { analyzePython } from './python.js';
import type * as ScriptAnalyzer from './typescript.js';
import type { FileAnalysis, Language } from './types.js';

// The TypeScript compiler takes a second or more to load: only a process that reads scripts pays.
let scriptAnalyzer: Promise<typeof ScriptAnalyzer> | undefined;

const LANGUAGES: Record<string, Language> = {
  '.ts': 'typescript',
  '.tsx': 'typescript',
  '.mts': 'typescript',
  '.cts': 'typescript',
  '.js': 'javascript',
  '.jsx': 'javascript',
  '.mjs': 'javascript',
  '.cjs': 'javascript',
  '.py': 'python',
};

/** The language of a path by its extension; undefined for files the index skips. */
export function languageOf(file: string): Language | undefined {
  if (file.endsWith('.d.ts')) return undefined;
  const dot = file.lastIndexOf('.');
  return dot < 0 ? undefined : LANGUAGES[file.slice(dot).toLowerCase()];
}

export async function analyze(file: string, language: Language, text: string): Promise<FileAnalysis> {
  if (language === 'python') return analyzePython(text);
  scriptAnalyzer ??= import('./typescript.js');
  return (await scriptAnalyzer).analyzeScript(file, text);
}

export { analyzePython };
export type { FileAnalysis, ImportRef, Language, SymbolDef } from './types.js';
