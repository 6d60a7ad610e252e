/**
 * The shell blocks of README.md and docs/*.md, and the commands in them, as the docs-commands
 * tests read them (scripts/docs-commands*.int.test.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '@switchyard/redis';

export interface Block {
  where: string;
  text: string;
  /** The `docs-test:` note above it, if any. */
  note?: string;
}

export function docBlocks(): Block[] {
  const files = ['README.md', ...readdirSync(path.join(REPO_ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
  const blocks: Block[] = [];
  for (const file of files) {
    const lines = readFileSync(path.join(REPO_ROOT, file), 'utf8').split('\n');
    lines.forEach((line, i) => {
      if (!/^```(sh|bash|shell)\s*$/.test(line)) return;
      const end = lines.findIndex((l, j) => j > i && l.startsWith('```'));
      const note = /^<!-- docs-test: (.+) -->$/.exec(lines[i - 1] ?? '')?.[1];
      blocks.push({ where: `${file}:${i + 1}`, text: lines.slice(i + 1, end).join('\n'), ...(note ? { note } : {}) });
    });
  }
  return blocks;
}

/** The block's commands: continuation lines joined, comment lines and trailing comments left out. */
export function commandsOf(text: string): string[] {
  return text
    .replace(/\\\n\s*/g, '')
    .split('\n')
    .map((line) => line.replace(/\s+#\s.*$/, '').trim())
    .filter((line) => line && !line.startsWith('#'));
}
