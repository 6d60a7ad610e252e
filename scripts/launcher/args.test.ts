import assert from 'node:assert/strict';
import { test } from 'node:test';
import { launcherKey, parseLaunch, SAMPLE_TOPICS } from './args.js';

test('with no arguments the launcher writes the three sample stories with two workers and stops', () => {
  assert.deepEqual(parseLaunch([], {}), { kind: 'plan', plan: { topics: [...SAMPLE_TOPICS], serve: false, workers: 2, port: undefined, compiled: false } });
  assert.equal(SAMPLE_TOPICS.length, 3);
});

test('topics on the command line replace the samples, and --serve keeps the stack running', () => {
  const parsed = parseLaunch(['--serve', 'a robot baker', '  a moving island '], { WORKERS: '4', PORT: '9090' });
  assert.deepEqual(parsed, { kind: 'plan', plan: { topics: ['a robot baker', 'a moving island'], serve: true, workers: 4, port: 9090, compiled: false } });
});

test('--no-batch (npm run stack) serves without a batch', () => {
  assert.deepEqual(parseLaunch(['--serve', '--no-batch'], {}), { kind: 'plan', plan: { topics: [], serve: true, workers: 2, port: undefined, compiled: false } });
  assert.deepEqual(parseLaunch(['--no-batch'], {}), { kind: 'plan', plan: { topics: [], serve: true, workers: 2, port: undefined, compiled: false } });
});

test('--compiled runs the compiled services, with or without a batch', () => {
  assert.deepEqual(parseLaunch(['--no-batch', '--compiled'], {}), { kind: 'plan', plan: { topics: [], serve: true, workers: 2, port: undefined, compiled: true } });
  assert.equal((parseLaunch(['--compiled', 'a topic'], {}) as { plan: { compiled: boolean } }).plan.compiled, true);
});

test('an empty variable counts as unset', () => {
  assert.deepEqual(parseLaunch([], { WORKERS: '', PORT: '' }), { kind: 'plan', plan: { topics: [...SAMPLE_TOPICS], serve: false, workers: 2, port: undefined, compiled: false } });
});

test('an unknown option, a bad WORKERS or PORT, or topics with --no-batch are refused with one line', () => {
  assert.deepEqual(parseLaunch(['--sevre'], {}), { kind: 'error', message: 'unknown option --sevre (try --help)' });
  for (const WORKERS of ['0', 'two', '1.5', '65']) assert.match((parseLaunch([], { WORKERS }) as { message: string }).message, /^WORKERS must be/);
  for (const PORT of ['0', 'http', '70000']) assert.match((parseLaunch([], { PORT }) as { message: string }).message, /^PORT must be/);
  assert.equal(parseLaunch(['--no-batch', 'a topic'], {}).kind, 'error');
});

test('--help asks for the usage', () => {
  assert.deepEqual(parseLaunch(['a topic', '--help'], {}), { kind: 'help' });
  assert.deepEqual(parseLaunch(['-h'], {}), { kind: 'help' });
});

test('the launcher calls the API with the first key of API_KEYS that may start runs, its scopes left off', () => {
  assert.deepEqual(launcherKey({}, { batch: true }), { kind: 'key', key: undefined });
  assert.deepEqual(launcherKey({ API_KEYS: 'watcher:read,agent:read+run,root' }, { batch: true }), { kind: 'key', key: 'agent' });
  assert.deepEqual(launcherKey({ API_KEYS: 'root,agent:run' }, { batch: true }), { kind: 'key', key: 'root' });
  assert.deepEqual(launcherKey({ API_KEYS: 'watcher:read' }, { batch: false }), { kind: 'key', key: 'watcher' }, 'serving only, any key is printed');
});

test('a bad API_KEYS entry, or a batch with no key that may start runs, stops the launch with one line', () => {
  const bad = launcherKey({ API_KEYS: 'k1,k2:write' }, { batch: true });
  assert.equal(bad.kind, 'error');
  assert.match((bad as { message: string }).message, /^API_KEYS: entry 2 \(scopes "write"\): unknown scope "write"/);
  const readOnly = launcherKey({ API_KEYS: 'watcher:read,ops:admin' }, { batch: true });
  assert.match((readOnly as { message: string }).message, /no key with the 'run' scope/);
});

test('--agent runs the research agent on its topic instead of the batch, and wants a topic', () => {
  assert.deepEqual(parseLaunch(['--agent', 'the history of tea'], {}), { kind: 'plan', plan: { topics: [], serve: false, workers: 2, port: undefined, compiled: false, agent: 'the history of tea' } });
  assert.deepEqual(parseLaunch(['--agent=kites', '--serve'], {}), { kind: 'plan', plan: { topics: [], serve: true, workers: 2, port: undefined, compiled: false, agent: 'kites' } });
  assert.equal(parseLaunch(['--agent'], {}).kind, 'error');
  assert.equal(parseLaunch(['--agent', 'tea', 'a topic'], {}).kind, 'error');
});
