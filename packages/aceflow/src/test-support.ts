/**
 * Helpers shared by this package's tests (not exported): scratch directories, a listing of every
 * file under a directory (to prove nothing was written), and filling a template completely.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** A fresh directory under the system's temp dir, and a function removing it. */
export async function scratchDir(label: string): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), `aceflow-${label}-`));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** Every entry below `dir` (files, directories and links), relative, sorted; [] when it does not exist. */
export async function listTree(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  return entries.map(String).sort();
}

/** The template with every placeholder replaced by a sentence naming it: a complete output. */
export function fillTemplate(template: string): string {
  return template.replace(/\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g, (_, name: string) => `The ${name.replace(/_/g, ' ')} of this project, written out in full for the reader.`);
}
