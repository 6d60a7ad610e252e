import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT } from '@switchyard/redis';

const WORKSPACES = ['packages', 'services'].flatMap((dir) => readdirSync(path.join(REPO_ROOT, dir)).map((name) => `${dir}/${name}`));
const readJson = <T>(file: string) => JSON.parse(readFileSync(path.join(REPO_ROOT, file), 'utf8')) as T;

/** The workspaces a workspace's built sources (tests and test kits left out, as the build does) import. */
function importedWorkspaces(workspace: string): string[] {
  const names = new Map(WORKSPACES.map((w) => [readJson<{ name: string }>(`${w}/package.json`).name, w]));
  const found = new Set<string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir)) {
      const full = path.join(dir, entry);
      if (statSync(full).isDirectory()) {
        if (entry !== 'testing') walk(full);
      } else if (entry.endsWith('.ts') && !entry.endsWith('.test.ts') && entry !== 'test-kit.ts' && entry !== 'test-support.ts') {
        for (const [, name] of readFileSync(full, 'utf8').matchAll(/from '(@switchyard\/[a-z-]+)(?:\/[a-z-]+)*'/g)) found.add(names.get(name ?? '') ?? `unknown ${name}`);
      }
    }
  };
  walk(path.join(REPO_ROOT, workspace, 'src'));
  return [...found].sort();
}

test('each workspace build references exactly the workspaces its sources import, so tsc -b builds them first', () => {
  for (const workspace of WORKSPACES) {
    const config = readJson<{ references?: { path: string }[] }>(`${workspace}/tsconfig.build.json`);
    const referenced = (config.references ?? []).map((r) => path.relative(REPO_ROOT, path.dirname(path.resolve(REPO_ROOT, workspace, r.path)))).sort();
    assert.deepEqual(referenced, importedWorkspaces(workspace), workspace);
  }
});

test('the root build lists every workspace, and each resolves to its dist/ under the switchyard-dist condition', () => {
  const root = readJson<{ references: { path: string }[] }>('tsconfig.build.json');
  assert.deepEqual(root.references.map((r) => path.dirname(r.path)).sort(), [...WORKSPACES].sort());
  for (const workspace of WORKSPACES) {
    const exports = readJson<{ exports: Record<string, unknown> }>(`${workspace}/package.json`).exports['.'];
    assert.deepEqual(exports, { 'switchyard-dist': './dist/index.js', default: './src/index.ts' }, workspace);
  }
});
