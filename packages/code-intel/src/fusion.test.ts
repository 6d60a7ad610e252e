import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { IndexedChunk } from './code-index.js';
import { expandOverGraph, rankFiles, reciprocalRankFusion, trimToBudget } from './fusion.js';

const chunk = (file: string, n = 0): IndexedChunk => ({ id: `${file}#${n}`, file, startLine: 1, endLine: 1, text: file, vector: new Float32Array(0) });

test('chunks become files in the order of their best chunk', () => {
  const files = rankFiles([
    { chunk: chunk('a', 1), score: 0.9 },
    { chunk: chunk('b'), score: 0.8 },
    { chunk: chunk('a', 0), score: 0.7 },
  ]);
  assert.deepEqual(files.map((f) => [f.file, f.chunk.id]), [['a', 'a#1'], ['b', 'b#0']]);
});

test('reciprocal rank fusion adds 1/(60+rank) over the lists a file is in', () => {
  const list = (...files: string[]) => files.map((file) => ({ file, score: 0, chunk: chunk(file) }));
  const fused = reciprocalRankFusion([list('a', 'b', 'c'), list('c', 'a')]);
  assert.deepEqual(fused.map((f) => f.file), ['a', 'c', 'b']);
  assert.ok(Math.abs((fused[0]?.score ?? 0) - (1 / 61 + 1 / 62)) < 1e-12);
  assert.ok(Math.abs((fused[2]?.score ?? 0) - 1 / 62) < 1e-12);
});

test('graph expansion passes half a file\'s score per hop, best path counting, and stops at the depth', async () => {
  const edges: Record<string, string[]> = { a: ['b', 'c'], b: ['d'], c: ['d'], d: ['e'] };
  const neighbors = async (file: string) => edges[file] ?? [];
  const seeds = new Map([['a', 1]]);
  assert.deepEqual([...(await expandOverGraph(seeds, 1, neighbors, 10))], [['b', 0.5], ['c', 0.5]]);
  assert.deepEqual(Object.fromEntries(await expandOverGraph(seeds, 3, neighbors, 10)), { b: 0.5, c: 0.5, d: 0.25, e: 0.125 });
  assert.equal((await expandOverGraph(seeds, 0, neighbors, 10)).size, 0);
});

test('each hop expands only its best files up to the fanout', async () => {
  const asked: string[] = [];
  const neighbors = async (file: string) => {
    asked.push(file);
    return [`${file}-n`];
  };
  await expandOverGraph(new Map([['x', 0.1], ['y', 0.9], ['z', 0.5]]), 1, neighbors, 2);
  assert.deepEqual(asked.sort(), ['y', 'z']);
});

test('the budget keeps whole candidates while they fit and cuts the next one short', () => {
  const candidates = [{ content: 'a'.repeat(40) }, { content: 'b'.repeat(40) }, { content: 'c'.repeat(40) }];
  const kept = trimToBudget(candidates, 15);
  assert.deepEqual(kept.map((c) => c.content.length), [40, 20]);
  assert.ok(kept[1]?.content.endsWith('…'));
  assert.equal(trimToBudget(candidates, 1000).length, 3);
});
