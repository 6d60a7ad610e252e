import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyze, analyzePython, languageOf } from './index.js';

test('TypeScript imports, re-exports, require and import() are all found with the names they bring', async () => {
  const source = [
    "import def, { a, b as c } from './one.js';",
    "import * as ns from '../two';",
    "import './side-effect.js';",
    "export { x } from './three.js';",
    "const lazy = () => import('./four.js');",
    "const cjs = require('./five.cjs');",
    "const text = \"import { nope } from './in-a-string.js'\";",
  ].join('\n');
  const analysis = await analyze('src/a.ts', 'typescript', source);
  assert.deepEqual(
    analysis.imports.map((i) => [i.specifier, i.names, i.line]),
    [
      ['./one.js', ['default', 'a', 'b'], 1],
      ['../two', [], 2],
      ['./side-effect.js', [], 3],
      ['./three.js', ['x'], 4],
      ['./four.js', [], 5],
      ['./five.cjs', [], 6],
    ],
  );
});

test('functions, classes, methods and object methods are found with their lines and the names they call', async () => {
  const source = `export function outer(x: number) {
  helper(1);
  return new Thing().run(() => callback());
}

const helper = (n: number) => Math.max(n + 1, 0);

export class Thing {
  run(fn: () => void) {
    fn();
    this.stop();
  }
}

export const repo = {
  async save(item: string) {
    await write(item);
  },
};
`;
  const { symbols } = await analyze('src/a.ts', 'typescript', source);
  const byName = Object.fromEntries(symbols.map((s) => [s.name, s]));
  assert.deepEqual(Object.keys(byName), ['outer', 'helper', 'Thing', 'run', 'repo', 'save']);
  assert.deepEqual([byName.outer?.line, byName.outer?.endLine, byName.outer?.exported, byName.outer?.kind], [1, 4, true, 'function']);
  assert.deepEqual(byName.outer?.calls.sort(), ['Thing', 'callback', 'helper', 'run']);
  assert.deepEqual([byName.helper?.exported, byName.helper?.calls], [false, ['max']]);
  assert.deepEqual([byName.run?.kind, byName.run?.container, byName.run?.calls.sort()], ['method', 'Thing', ['fn', 'stop']]);
  assert.deepEqual([byName.save?.kind, byName.save?.container, byName.save?.calls], ['method', 'repo', ['write']]);
});

test('a function passed as a callback counts as called by the one receiving it', async () => {
  const { symbols, moduleCalls } = await analyze('src/server.js', 'javascript', 'const routes = { a: requireAuth(handleOrders) };\nstart(routes);');
  assert.deepEqual(symbols.find((s) => s.name === 'routes')?.calls.sort(), ['handleOrders', 'requireAuth']);
  assert.deepEqual(moduleCalls.sort(), ['routes', 'start']);
});

test('Python definitions run to the end of their indented block, and calls go to the innermost one', () => {
  const source = `"""Module doc mentioning fake_call(1)."""
import os, json as j
from .loader import (
    load_orders,
    OrderRow as Row,
)
from . import formatting


class Report:
    def build(self, path):
        rows = load_orders(path)  # not_a_call(here)
        return formatting.euros(total(rows))


def total(rows):
    return sum(r.cents for r in rows)


if __name__ == "__main__":
    main()
`;
  const analysis = analyzePython(source);
  assert.deepEqual(
    analysis.imports.map((i) => [i.specifier, i.names]),
    [
      ['os', []],
      ['json', []],
      ['.loader', ['load_orders', 'OrderRow']],
      ['.', ['formatting']],
    ],
  );
  const byName = Object.fromEntries(analysis.symbols.map((s) => [s.name, s]));
  assert.deepEqual([byName.Report?.kind, byName.Report?.line, byName.Report?.endLine], ['class', 10, 13]);
  assert.deepEqual([byName.build?.kind, byName.build?.container, byName.build?.calls.sort()], ['method', 'Report', ['euros', 'load_orders', 'total']]);
  assert.deepEqual([byName.total?.line, byName.total?.endLine, byName.total?.calls], [16, 17, ['sum']]);
  assert.deepEqual(analysis.moduleCalls, ['main']);
});

test('languages are told by extension, and declaration files are skipped', () => {
  assert.deepEqual(['a.ts', 'b.tsx', 'c.mjs', 'd.cjs', 'e.jsx', 'f.py', 'g.d.ts', 'h.md', 'Makefile'].map(languageOf), ['typescript', 'typescript', 'javascript', 'javascript', 'javascript', 'python', undefined, undefined, undefined]);
});

test('arguments naming parameters or local variables are not taken for callbacks', async () => {
  const source = 'export function run(input: string, { retries }: Options) {\n  const limit = 3;\n  go(input, retries, limit, onDone);\n}';
  const [run] = (await analyze('src/run.ts', 'typescript', source)).symbols;
  assert.deepEqual(run?.calls.sort(), ['go', 'onDone']);
});
