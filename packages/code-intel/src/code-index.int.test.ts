import assert from 'node:assert/strict';
import { readdir, rm, unlink, writeFile, mkdir, utimes } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { CodeIndex } from './code-index.js';
import { importNeighbors } from './graph.js';
import { fixtureCopy, scratchDir } from './test-kit.js';

let repo: Awaited<ReturnType<typeof fixtureCopy>>;
let data: Awaited<ReturnType<typeof scratchDir>>;
before(async () => {
  repo = await fixtureCopy();
  data = await scratchDir();
});
after(async () => {
  await repo.remove();
  await data.remove();
});

const open = () => new CodeIndex({ root: repo.root, dataDir: data.dir, rescanAfterMs: 0 });

test('the first refresh indexes every TypeScript, JavaScript and Python file, and the snapshot lands under the data folder', async () => {
  const index = open();
  const stats = await index.refresh();
  assert.equal(stats.files, 25);
  assert.equal(stats.indexed, 25);
  assert.ok(stats.chunks >= 25);
  assert.ok(index.hasFile('analytics/report.py') && index.hasFile('web/checkout.js') && index.hasFile('src/lib/retry.ts'));
  assert.ok(!index.hasFile('README.md'));
  const snapshots = (await readdir(data.dir)).filter((name) => name.endsWith('.json'));
  assert.equal(snapshots.length, 1);
});

test('relative imports resolve to files across the three languages', async () => {
  const index = open();
  await index.refresh();
  const { graph } = index;
  assert.deepEqual([...(graph.imports.get('src/services/orders.ts') ?? [])].sort(), ['src/config.ts', 'src/db/repository.ts', 'src/payments/gateway.ts', 'src/services/pricing.ts']);
  assert.deepEqual([...(graph.imports.get('analytics/report.py') ?? [])].sort(), ['analytics/formatting.py', 'analytics/loader.py', 'analytics/metrics.py']);
  assert.deepEqual([...(graph.imports.get('analytics/cli.py') ?? [])], ['analytics/report.py'], 'an absolute import of a workspace package');
  assert.deepEqual([...(graph.imports.get('web/checkout.js') ?? [])], ['web/cart.js'], 'require()');
  assert.deepEqual([...(graph.imports.get('web/cart.js') ?? [])], ['src/utils/money.js']);
  assert.deepEqual(importNeighbors(graph, 'src/lib/retry.ts'), ['src/payments/gateway.ts']);
});

test('a new process reads the snapshot and indexes nothing again', async () => {
  await open().refresh();
  const stats = await open().refresh();
  assert.equal(stats.indexed, 0);
  assert.equal(stats.files, 25);
});

test('a refresh re-reads only what changed: edited, added and deleted files', async () => {
  const index = open();
  await index.refresh();
  await writeFile(path.join(repo.root, 'src/lib/retry.ts'), 'export function withRetry() {\n  return circuitBreakerOpen();\n}\n');
  await mkdir(path.join(repo.root, 'src/lib/breaker'), { recursive: true });
  await writeFile(path.join(repo.root, 'src/lib/breaker/index.ts'), "import { withRetry } from '../retry.js';\nexport const circuitBreakerOpen = () => withRetry();\n");
  await unlink(path.join(repo.root, 'web/checkout.js'));
  const stats = await index.refresh();
  assert.deepEqual([stats.indexed, stats.removed, stats.files], [2, 1, 25]);
  assert.ok(!index.hasFile('web/checkout.js'));
  assert.deepEqual(importNeighbors(index.graph, 'src/lib/retry.ts').sort(), ['src/lib/breaker/index.ts', 'src/payments/gateway.ts']);
  const hits = index.keywordSearch('circuit breaker', 5).map((h) => h.chunk.file);
  assert.deepEqual(hits.sort(), ['src/lib/breaker/index.ts', 'src/lib/retry.ts']);
  assert.equal(index.keywordSearch('exponential backoff jitter', 5).filter((h) => h.chunk.file === 'src/lib/retry.ts').length, 0, 'the old text is gone');
});

test('a touched file whose content is unchanged is not re-indexed', async () => {
  const index = open();
  await index.refresh();
  const later = new Date(Date.now() + 5000);
  await utimes(path.join(repo.root, 'src/config.ts'), later, later);
  assert.equal((await index.refresh()).indexed, 0);
});

test('.gitignore rules and dependency folders keep files out', async () => {
  await writeFile(path.join(repo.root, '.gitignore'), 'generated/\n*.min.js\n');
  await mkdir(path.join(repo.root, 'generated'), { recursive: true });
  await mkdir(path.join(repo.root, 'node_modules/dep'), { recursive: true });
  await writeFile(path.join(repo.root, 'generated/out.ts'), 'export const x = 1;\n');
  await writeFile(path.join(repo.root, 'web/bundle.min.js'), 'var a=1;\n');
  await writeFile(path.join(repo.root, 'node_modules/dep/index.js'), 'module.exports = 1;\n');
  const index = new CodeIndex({ root: repo.root, dataDir: null });
  await index.refresh();
  assert.ok(!index.hasFile('generated/out.ts') && !index.hasFile('web/bundle.min.js') && !index.hasFile('node_modules/dep/index.js'));
  await rm(path.join(repo.root, '.gitignore'));
});

test('refreshes asked for at once share one pass, and one within rescanAfterMs is skipped', async () => {
  const index = new CodeIndex({ root: repo.root, dataDir: null, rescanAfterMs: 60_000 });
  const [a, b] = await Promise.all([index.refresh(), index.refresh()]);
  assert.equal(a, b);
  await writeFile(path.join(repo.root, 'src/new-file.ts'), 'export const late = true;\n');
  assert.equal((await index.refresh()).indexed, a.indexed, 'skipped: the last pass is answered');
  assert.ok(!index.hasFile('src/new-file.ts'));
  await index.refresh({ force: true });
  assert.ok(index.hasFile('src/new-file.ts'));
  await rm(path.join(repo.root, 'src/new-file.ts'));
});
