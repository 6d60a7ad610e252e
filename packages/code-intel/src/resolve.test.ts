import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resolveImport } from './resolve.js';

const files = new Set(['src/a.ts', 'src/lib/retry.ts', 'src/lib/index.ts', 'src/util.js', 'web/cart.js', 'pkg/__init__.py', 'pkg/report.py', 'pkg/sub/__init__.py', 'pkg/sub/deep.py', 'pkg/formatting.py', 'tools/cli.py']);
const ts = (from: string, specifier: string) => resolveImport(from, 'typescript', { specifier, names: [], line: 1 }, files);
const py = (from: string, specifier: string, names: string[] = []) => resolveImport(from, 'python', { specifier, names, line: 1 }, files);

test('relative script imports resolve to files, ESM ".js" names to their TypeScript source', () => {
  assert.deepEqual(ts('src/a.ts', './lib/retry.js'), ['src/lib/retry.ts']);
  assert.deepEqual(ts('src/a.ts', './lib/retry'), ['src/lib/retry.ts']);
  assert.deepEqual(ts('src/a.ts', './lib'), ['src/lib/index.ts']);
  assert.deepEqual(ts('src/a.ts', './util.js'), ['src/util.js']);
  assert.deepEqual(ts('web/cart.js', '../src/util.js'), ['src/util.js']);
});

test('packages, missing files and paths leaving the workspace resolve to nothing', () => {
  assert.deepEqual(ts('src/a.ts', 'node:http'), []);
  assert.deepEqual(ts('src/a.ts', 'zod'), []);
  assert.deepEqual(ts('src/a.ts', './missing.js'), []);
  assert.deepEqual(ts('src/a.ts', '../../outside.js'), []);
});

test('Python relative imports resolve by their dots, naming modules or submodules', () => {
  assert.deepEqual(py('pkg/report.py', '.formatting'), ['pkg/formatting.py']);
  assert.deepEqual(py('pkg/report.py', '.', ['formatting']), ['pkg/formatting.py']);
  assert.deepEqual(py('pkg/sub/deep.py', '..report', ['build']), ['pkg/report.py']);
  assert.deepEqual(py('pkg/sub/deep.py', '..', ['nothing_here']), ['pkg/__init__.py']);
  assert.deepEqual(py('pkg/report.py', '.sub'), ['pkg/sub/__init__.py']);
});

test('Python absolute imports resolve when the package lies in the workspace', () => {
  assert.deepEqual(py('tools/cli.py', 'pkg.report', ['build_report']), ['pkg/report.py']);
  assert.deepEqual(py('tools/cli.py', 'pkg.sub.deep'), ['pkg/sub/deep.py']);
  assert.deepEqual(py('tools/cli.py', 'json'), []);
});
