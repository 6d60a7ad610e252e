/**
 * No dead links in the docs: every relative link of the Markdown files a user reads (README.md,
 * docs/, each package's and service's README) names a file that exists and, with `#anchor`, a
 * heading of that file (GitHub's slugs). Links to other sites are not fetched (no network here).
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT } from '@switchyard/redis';

function markdownFiles(): string[] {
  const files = [path.join(REPO_ROOT, 'README.md')];
  for (const entry of readdirSync(path.join(REPO_ROOT, 'docs'))) if (entry.endsWith('.md')) files.push(path.join(REPO_ROOT, 'docs', entry));
  for (const group of ['packages', 'services']) {
    for (const name of readdirSync(path.join(REPO_ROOT, group))) {
      const readme = path.join(REPO_ROOT, group, name, 'README.md');
      if (existsSync(readme)) files.push(readme);
    }
  }
  return files;
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
export function slugOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const match of text.matchAll(/^#{1,6}\s+(.+)$/gm)) {
    const slug = slugOf(match[1] ?? '');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

test('every relative link of the docs names a file that exists, and a heading of it when it has an anchor', () => {
  const dead: string[] = [];
  let checked = 0;
  for (const file of markdownFiles()) {
    const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
    for (const match of text.matchAll(/\[[^\]]*\]\(([^)\s]+)\)/g)) {
      const target = match[1] ?? '';
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      checked += 1;
      const [filePart, anchor] = target.split('#') as [string, string | undefined];
      const resolved = filePart ? path.resolve(path.dirname(file), filePart) : file;
      const where = `${path.relative(REPO_ROOT, file)}: (${target})`;
      if (!existsSync(resolved)) dead.push(`${where} — no such file`);
      else if (anchor && statSync(resolved).isFile() && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor)) dead.push(`${where} — no heading #${anchor}`);
    }
  }
  process.stdout.write(`# ${checked} relative links checked\n`);
  assert.deepEqual(dead, []);
});
