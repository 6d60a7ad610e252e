import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';

const script = new URL('./testing/stalling-process.ts', import.meta.url).pathname;

function runStalling(mode: 'block' | 'idle', stallMs: number): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string; ms: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', script, String(stallMs), mode], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, stderr, ms: performance.now() - started })));
}

test('a process whose event loop is blocked past the bound is killed with a line saying why', async () => {
  const ended = await runStalling('block', 400);
  assert.equal(ended.signal, 'SIGKILL');
  assert.match(ended.stderr, /event loop blocked: killing the process/);
  assert.match(ended.stderr, /"name":"stalling-process"/);
});

test('a process whose event loop keeps turning is left alone', async () => {
  const ended = await runStalling('idle', 400);
  assert.equal(ended.signal, null);
  assert.equal(ended.code, 0);
  assert.doesNotMatch(ended.stderr, /event loop blocked/);
});
