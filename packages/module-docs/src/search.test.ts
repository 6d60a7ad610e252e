import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Module } from './module.js';
import { relevance, searchModules } from './search.js';

const mod = (hierarchical_name: string, description = 'Something else entirely', extra: Partial<Module> = {}): Module => {
  const parts = hierarchical_name.split('.');
  return { name: parts.at(-1) ?? '', hierarchical_name, type: 'function', description, ...(parts.length > 1 ? { parent: parts.slice(0, -1).join('.') } : {}), ...extra };
};

const modules = [
  mod('app.parse'),
  mod('app.parser_state', 'Keeps the parser state', { type: 'class' }),
  mod('app.reparse'),
  mod('app.render', 'Renders what parse produced'),
  mod('lib.parse_line', 'One line', { file: 'lib/parse.ts' }),
  mod('lib.unrelated'),
];

test('an exact name ranks before a prefix, a prefix before a substring, a substring before the description', () => {
  const page = searchModules(modules, { query: 'parse' });
  assert.deepEqual(page.results.map((r) => r.module.hierarchical_name), ['app.parse', 'lib.parse_line', 'app.parser_state', 'app.reparse', 'app.render']);
  const scores = page.results.map((r) => r.score);
  assert.deepEqual(scores, [...scores].sort((a, b) => b - a));
  assert.equal(scores[0], 1);
  assert.equal(page.total, 5);
});

test('within a tier the closer match ranks first', () => {
  const close = relevance(mod('x.parse_it'), 'parse');
  const far = relevance(mod('x.parse_everything_here'), 'parse');
  assert.ok(close > far && far >= 0.75 && close < 1);
});

test('matching is case-insensitive and a query matching nothing finds nothing', () => {
  assert.equal(searchModules(modules, { query: 'PARSE' }).total, 5);
  assert.equal(searchModules(modules, { query: 'zebra' }).total, 0);
});

test('type, parent and file filter before ranking', () => {
  assert.deepEqual(searchModules(modules, { query: 'parse', type: 'class' }).results.map((r) => r.module.name), ['parser_state']);
  assert.deepEqual(searchModules(modules, { parent: 'lib' }).results.map((r) => r.module.name), ['parse_line', 'unrelated']);
  assert.deepEqual(searchModules(modules, { file: 'lib/parse.ts' }).results.map((r) => r.module.name), ['parse_line']);
});

test('results are paged after sorting', () => {
  const all = searchModules(modules, { query: 'parse' }).results;
  const page = searchModules(modules, { query: 'parse', offset: 1, limit: 2 });
  assert.deepEqual(page.results, all.slice(1, 3));
  assert.deepEqual([page.offset, page.limit, page.total], [1, 2, 5]);
});
