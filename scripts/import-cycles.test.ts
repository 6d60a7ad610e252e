/**
 * No import circles: every TypeScript module of the workspaces and scripts, with its static
 * imports (type-only ones too: a circle of types is a circle of design), resolved as the
 * packages' exports resolve them, must form a graph without cycles.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT } from '@switchyard/redis';

function sourceFiles(dir: string, found: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name === 'fixtures' || entry.name.startsWith('.')) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) sourceFiles(full, found);
    else if (/\.ts$/.test(entry.name) && !entry.name.endsWith('.d.ts')) found.push(full);
  }
  return found;
}

/** `@switchyard/<name>` and its subpaths → the source file its `default` export condition names. */
function workspaceExports(): Map<string, string> {
  const map = new Map<string, string>();
  for (const group of ['packages', 'services']) {
    for (const name of readdirSync(path.join(REPO_ROOT, group))) {
      const manifestPath = path.join(REPO_ROOT, group, name, 'package.json');
      if (!existsSync(manifestPath)) continue;
      const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { name: string; exports?: Record<string, { default?: string } | string> };
      for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
        const file = typeof target === 'string' ? target : target.default;
        if (file?.endsWith('.ts')) map.set(`${manifest.name}${subpath === '.' ? '' : subpath.slice(1)}`, path.join(REPO_ROOT, group, name, file));
      }
    }
  }
  return map;
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|(?:^|\n)\s*import\s+['"]([^'"]+)['"]/g;

function importsOf(file: string, exportsMap: Map<string, string>): string[] {
  const text = readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const match of text.matchAll(IMPORT)) {
    const specifier = match[1] ?? match[2] ?? '';
    let target: string | undefined;
    if (specifier.startsWith('.')) {
      const resolved = path.resolve(path.dirname(file), specifier);
      target = [resolved.replace(/\.js$/, '.ts'), resolved, `${resolved}.ts`, path.join(resolved, 'index.ts')].find((candidate) => candidate.endsWith('.ts') && existsSync(candidate));
    } else target = exportsMap.get(specifier);
    if (target) found.push(target);
  }
  return found;
}

/** The strongly connected components of more than one module (or a module importing itself). */
function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const indexes = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (start: string) => {
    // Iterative Tarjan: the graph is deep enough to make recursion a risk.
    const work: Array<{ node: string; next: number }> = [{ node: start, next: 0 }];
    indexes.set(start, index);
    low.set(start, index++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1] as { node: string; next: number };
      const edges = graph.get(frame.node) ?? [];
      if (frame.next < edges.length) {
        const to = edges[frame.next++] as string;
        if (!indexes.has(to)) {
          indexes.set(to, index);
          low.set(to, index++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, next: 0 });
        } else if (onStack.has(to)) low.set(frame.node, Math.min(low.get(frame.node) as number, indexes.get(to) as number));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node) as number, low.get(frame.node) as number));
      if (low.get(frame.node) === indexes.get(frame.node)) {
        const component: string[] = [];
        let member: string | undefined;
        do {
          member = stack.pop() as string;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        if (component.length > 1 || (graph.get(frame.node) ?? []).includes(frame.node)) found.push(component);
      }
    }
  };
  for (const node of graph.keys()) if (!indexes.has(node)) visit(node);
  return found;
}

test('no module imports itself through others: the import graph has no circle', () => {
  const exportsMap = workspaceExports();
  const files = ['packages', 'services', 'scripts', 'tests'].flatMap((dir) => sourceFiles(path.join(REPO_ROOT, dir)));
  const graph = new Map(files.map((file) => [file, importsOf(file, exportsMap)]));
  const circles = cycles(graph).map((component) => component.map((file) => path.relative(REPO_ROOT, file)).sort());
  process.stdout.write(`# ${files.length} modules, ${[...graph.values()].reduce((n, edges) => n + edges.length, 0)} imports\n`);
  assert.deepEqual(circles, [], `circles:\n${circles.map((c) => c.join(' → ')).join('\n')}`);
});

/** Folder rules of docs/ARCHITECTURE.md's map: a module of the first may not import one of the second (tests excepted). */
const FORBIDDEN: Array<[RegExp, RegExp, string]> = [
  [/^packages\//, /^services\//, 'a package imports no service'],
  [/^packages\/pipeline\/src\/definition\//, /^packages\/pipeline\/src\/(engine|store)\//, 'the definition imports neither the engine nor the store'],
  [/^packages\/pipeline\/src\/store\//, /^packages\/pipeline\/src\/engine\//, 'the store imports no engine'],
];

test("every import keeps to the architecture's map: packages below services, definition below engine and store, store below engine", () => {
  const exportsMap = workspaceExports();
  const files = ['packages', 'services'].flatMap((dir) => sourceFiles(path.join(REPO_ROOT, dir))).filter((file) => !file.endsWith('.test.ts') && !/\/testing\//.test(file));
  const broken: string[] = [];
  for (const file of files) {
    const from = path.relative(REPO_ROOT, file);
    for (const target of importsOf(file, exportsMap)) {
      const to = path.relative(REPO_ROOT, target);
      for (const [source, forbidden, rule] of FORBIDDEN) if (source.test(from) && forbidden.test(to)) broken.push(`${from} → ${to}: ${rule}`);
    }
  }
  assert.deepEqual(broken, []);
});
