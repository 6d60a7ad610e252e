/**
 * Listing a workspace's source files: every file of a known language under the root, less what
 * the workspace's .gitignore files exclude (at any depth, as git reads them) and the folders that
 * are never source (dependencies, builds, caches, the index's own .data).
 */
import { readFile, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { languageOf, type Language } from './analyze/index.js';

export interface SourceFile {
  /** Relative to the root, with forward slashes: the file's name everywhere in answers. */
  path: string;
  language: Language;
  mtimeMs: number;
  size: number;
}

export interface WalkOptions {
  /** Larger files are skipped (generated or minified code, mostly). Default 512 KiB. */
  maxFileBytes?: number;
  /** Stop after this many files. Default 20000. */
  maxFiles?: number;
}

const ALWAYS_SKIPPED = new Set(['node_modules', '.git', '.hg', '.svn', '.data', 'dist', 'build', 'coverage', '__pycache__', '.venv', 'venv', '.tox', '.mypy_cache', '.pytest_cache', '.next', '.turbo']);

interface Rules {
  /** Directory the rules sit in, relative to the root ('' for the root). */
  base: string;
  matcher: Ignore;
}

async function rulesIn(root: string, dir: string): Promise<Rules | undefined> {
  try {
    const text = await readFile(path.join(root, dir, '.gitignore'), 'utf8');
    return { base: dir, matcher: ignore().add(text) };
  } catch {
    return undefined;
  }
}

function ignored(rules: Rules[], relative: string, isDirectory: boolean): boolean {
  return rules.some(({ base, matcher }) => {
    const local = base ? relative.slice(base.length + 1) : relative;
    return matcher.ignores(isDirectory ? `${local}/` : local);
  });
}

export async function listSourceFiles(root: string, options: WalkOptions = {}): Promise<SourceFile[]> {
  const maxFileBytes = options.maxFileBytes ?? 512 * 1024;
  const maxFiles = options.maxFiles ?? 20_000;
  const found: SourceFile[] = [];

  const walk = async (dir: string, inherited: Rules[]): Promise<void> => {
    const own = await rulesIn(root, dir);
    const rules = own ? [...inherited, own] : inherited;
    const entries = await readdir(path.join(root, dir), { withFileTypes: true }).catch(() => []);
    entries.sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const entry of entries) {
      if (found.length >= maxFiles) return;
      const relative = dir ? `${dir}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (ALWAYS_SKIPPED.has(entry.name) || ignored(rules, relative, true)) continue;
        await walk(relative, rules);
      } else if (entry.isFile()) {
        const language = languageOf(entry.name);
        if (!language || ignored(rules, relative, false)) continue;
        const info = await stat(path.join(root, relative)).catch(() => undefined);
        if (!info || info.size > maxFileBytes) continue;
        found.push({ path: relative, language, mtimeMs: info.mtimeMs, size: info.size });
      }
    }
  };
  await walk('', []);
  return found;
}
