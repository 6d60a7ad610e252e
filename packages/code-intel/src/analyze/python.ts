/**
 * Python by its layout: `def` and `class` open a block that runs until a line indented no deeper,
 * calls are `name(`, and imports are `import a.b` and `from .a import b` (parenthesised lists
 * across lines included). No parser in Node reads Python well without native code; indentation
 * is what Python itself uses, so this is faithful for ordinary code. Strings are blanked first so
 * that a call named inside a string is not counted.
 */
import type { FileAnalysis, ImportRef, SymbolDef } from './types.js';

const NOT_CALLS = new Set(['import', 'from', 'if', 'elif', 'while', 'for', 'return', 'and', 'or', 'not', 'in', 'is', 'with', 'assert', 'del', 'yield', 'await', 'lambda', 'print', 'except', 'def', 'class', 'raise', 'super']);

const indentOf = (line: string) => line.length - line.trimStart().length;

/** Replaces string contents (and comments) with spaces, keeping line breaks and columns. */
function blankStrings(text: string): string {
  return text.replace(/("""[\s\S]*?"""|'''[\s\S]*?'''|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|#[^\n]*)/g, (match) => match.replace(/[^\n]/g, ' '));
}

function parseImports(lines: string[]): ImportRef[] {
  const imports: ImportRef[] = [];
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i] ?? '';
    const from = /^\s*from\s+(\.*[\w.]*)\s+import\s+(.*)$/.exec(line);
    if (from) {
      let names = from[2] ?? '';
      // A parenthesised list may run over several lines.
      if (names.includes('(') && !names.includes(')')) {
        let j = i + 1;
        while (j < lines.length && !(lines[j] ?? '').includes(')')) names += ` ${lines[j++] ?? ''}`;
        names += ` ${lines[j] ?? ''}`;
      }
      const list = names
        .replace(/[()\\]/g, ' ')
        .split(',')
        .map((n) => n.trim().split(/\s+as\s+/)[0]?.trim() ?? '')
        .filter((n) => /^[\w*]+$/.test(n));
      imports.push({ specifier: from[1] ?? '', names: list, line: i + 1 });
      continue;
    }
    const plain = /^\s*import\s+(.+)$/.exec(line);
    if (plain) {
      for (const part of (plain[1] ?? '').split(',')) {
        const module = part.trim().split(/\s+as\s+/)[0]?.trim();
        if (module && /^[\w.]+$/.test(module)) imports.push({ specifier: module, names: [], line: i + 1 });
      }
    }
  }
  return imports;
}

export function analyzePython(text: string): FileAnalysis {
  const original = text.split('\n');
  const lines = blankStrings(text).split('\n');
  const imports = parseImports(lines.map((line, i) => (/^\s*(from|import)\s/.test(line) ? (original[i] ?? '') : line)));
  const symbols: (SymbolDef & { indent: number; set: Set<string> })[] = [];
  const open: (typeof symbols)[number][] = [];
  const moduleCalls = new Set<string>();

  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i] ?? '';
    if (!line.trim()) continue;
    const indent = indentOf(line);
    while (open.length && indent <= (open.at(-1)?.indent ?? -1)) open.pop();
    const parent = open.at(-1);
    const def = /^\s*(?:async\s+)?(def|class)\s+([A-Za-z_]\w*)/.exec(line);
    if (def) {
      const isClass = def[1] === 'class';
      const symbol = {
        name: def[2] ?? '',
        kind: isClass ? ('class' as const) : parent?.kind === 'class' ? ('method' as const) : ('function' as const),
        line: i + 1,
        endLine: i + 1,
        exported: !(def[2] ?? '').startsWith('_') && !parent,
        calls: [],
        indent,
        set: new Set<string>(),
        ...(parent?.kind === 'class' ? { container: parent.name } : {}),
      };
      symbols.push(symbol);
      open.push(symbol);
      continue;
    }
    for (const symbol of open) symbol.endLine = i + 1;
    const calls = parent?.set ?? moduleCalls;
    for (const match of line.matchAll(/([A-Za-z_]\w*)\s*\(/g)) {
      const name = match[1] ?? '';
      if (!NOT_CALLS.has(name)) calls.add(name);
    }
  }

  return {
    imports,
    symbols: symbols.map(({ indent: _indent, set, ...symbol }) => ({ ...symbol, calls: [...set].filter((name) => name !== symbol.name) })),
    moduleCalls: [...moduleCalls],
  };
}
