import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CodeIndex } from '../code-index.js';
import { ckbIntegrationSchema } from '../config.js';
import { createCodeIntel, type CodeIntel } from '../code-intel.js';
import { assertValidAnswer, FIXTURE_ROOT, manualClock } from '../test-kit.js';
import { CkbClient } from './client.js';
import { serveCkbHttp, type CkbServerControls } from './server.js';

// A real CKB-compatible server over Streamable HTTP on loopback, answering about the fixture.
const controls: CkbServerControls = {};
const calls: string[] = [];
let served: Awaited<ReturnType<typeof serveCkbHttp>>;
before(async () => {
  controls.onCall = (tool) => calls.push(tool);
  served = await serveCkbHttp(new CodeIndex({ root: FIXTURE_ROOT, dataDir: null }), controls);
});
after(() => served.close());

const reset = (next: Omit<CkbServerControls, 'onCall'> = {}) => {
  controls.delayMs = next.delayMs ?? 0;
  controls.unavailable = next.unavailable ?? false;
  controls.failGraphTools = next.failGraphTools ?? false;
  calls.length = 0;
};

function intelWith(options: { timeout_ms?: number; cooldown_s?: number } = {}) {
  const clock = manualClock();
  const intel = createCodeIntel({ root: FIXTURE_ROOT, dataDir: null, clock, ckb: { url: served.url, ...options } });
  return { intel, clock };
}

const closing: CodeIntel[] = [];
after(() => Promise.all(closing.map((intel) => intel.close())));
const opened = (options?: Parameters<typeof intelWith>[0]) => {
  const made = intelWith(options);
  closing.push(made.intel);
  return made;
};

test('the seed\'s defaults: a 5 s timeout and a 60 s cooldown, enabled when configured', () => {
  const config = ckbIntegrationSchema.parse({ command: 'ckb', args: ['mcp'] });
  assert.deepEqual([config.enabled, config.timeout_ms, config.cooldown_s], [true, 5000, 60]);
  assert.throws(() => ckbIntegrationSchema.parse({ command: 'ckb', url: 'http://127.0.0.1:1/mcp' }), /a command or a url, not both/);
  assert.throws(() => ckbIntegrationSchema.parse({ url: 'http://127.0.0.1:1/mcp', cooldown_s: 61 }));
});

test('a healthy CKB is checked, then its call graph and references drive the expansion', async () => {
  reset();
  const { intel } = opened();
  const answer = await intel.graphRag({ query: 'HS256', top_k: 5 });
  assertValidAnswer(answer);
  assert.deepEqual(Object.keys(answer.metadata), ['ckb_available', 'fusion_depth', 'total_candidates', 'query_time_ms']);
  assert.equal(answer.metadata.ckb_available, true);
  assert.equal(calls[0], 'getStatus');
  for (const tool of ['searchSymbols', 'getCallGraph', 'findReferences']) assert.ok(calls.includes(tool), `${tool} in ${calls.join(', ')}`);
  const files = answer.candidates.map((c) => c.file);
  assert.equal(files[0], 'src/lib/jwt.ts');
  assert.ok(files.includes('src/middleware/auth.ts') && files.includes('src/services/users.ts'), files.join(', '));
});

test('an unhealthy CKB falls back to the local graph as health_check_failed, then stays in cooldown', async () => {
  reset({ unavailable: true });
  const { intel, clock } = opened();
  const first = await intel.graphRag({ query: 'HS256', top_k: 5 });
  assertValidAnswer(first);
  assert.equal(first.metadata.ckb_available, false);
  assert.equal(first.metadata.ckb_fallback_reason, 'health_check_failed');
  assert.equal(first.metadata.ckb_last_error, 'CKB reports status "unavailable"');
  assert.equal(first.metadata.fallback_mode, 'local_graph');
  assert.equal(first.metadata.ckb_cooldown_remaining_s, 60);
  assert.ok(first.candidates.map((c) => c.file).includes('src/middleware/auth.ts'), 'the local graph still expands');
  reset();
  clock.advance(15_000);
  const second = await intel.graphRag({ query: 'HS256', top_k: 5 });
  assertValidAnswer(second);
  assert.equal(second.metadata.ckb_fallback_reason, 'cooldown');
  assert.equal(second.metadata.ckb_cooldown_remaining_s, 45);
  assert.equal(second.metadata.ckb_last_error, 'CKB reports status "unavailable"');
  assert.deepEqual(calls, [], 'CKB is not contacted during the cooldown');
});

test('the cooldown\'s seconds count down across calls, and CKB is tried again when it ends', async () => {
  reset({ unavailable: true });
  const { intel, clock } = opened();
  assert.equal((await intel.graphRag({ query: 'retry' })).metadata.ckb_cooldown_remaining_s, 60);
  reset();
  const seen: (number | undefined)[] = [];
  for (const step of [1, 9.5, 20, 29]) {
    clock.advance(step * 1000);
    const answer = await intel.graphRag({ query: 'retry' });
    assertValidAnswer(answer);
    seen.push(answer.metadata.ckb_cooldown_remaining_s);
  }
  assert.deepEqual(seen, [59, 50, 30, 1]);
  clock.advance(500);
  const back = await intel.graphRag({ query: 'retry' });
  assert.equal(back.metadata.ckb_available, true);
  assert.equal(back.metadata.ckb_last_error, undefined);
  assert.equal(calls[0], 'getStatus');
});

test('a CKB slower than the timeout is a connection_timeout, with the seed\'s message', async () => {
  reset({ delayMs: 1500 });
  const { intel } = opened({ timeout_ms: 300 });
  await intel.index.refresh(); // so that only the query is timed
  const started = performance.now();
  const answer = await intel.graphRag({ query: 'retry' });
  assert.ok(performance.now() - started < 1400, 'the answer does not wait for CKB');
  assertValidAnswer(answer);
  assert.equal(answer.metadata.ckb_fallback_reason, 'connection_timeout');
  assert.equal(answer.metadata.ckb_last_error, 'Connection timeout after 300ms');
  assert.equal(answer.metadata.fallback_mode, 'local_graph');
});

test('a CKB tool answering an error is an mcp_error, and this answer falls back to the local graph', async () => {
  reset({ failGraphTools: true });
  const { intel } = opened();
  const answer = await intel.graphRag({ query: 'HS256', top_k: 5 });
  assertValidAnswer(answer);
  assert.equal(answer.metadata.ckb_available, false);
  assert.equal(answer.metadata.ckb_fallback_reason, 'mcp_error');
  assert.match(answer.metadata.ckb_last_error ?? '', /backend error/);
  assert.equal(answer.metadata.ckb_cooldown_remaining_s, 60);
  assert.ok(answer.candidates.map((c) => c.file).includes('src/middleware/auth.ts'));
});

test('a CKB that cannot be reached at all fails its health check', async () => {
  const client = new CkbClient({ url: 'http://127.0.0.1:9/mcp', timeout_ms: 3000 }, { clock: manualClock() });
  const { status, api } = await client.open();
  assert.equal(api, undefined);
  assert.equal(status.reason, 'health_check_failed');
  assert.ok(status.lastError);
  await client.close();
});

test('the call chain comes from CKB when it is healthy, and from the local graph in fallback, alike', async () => {
  reset();
  const { intel } = opened();
  const viaCkb = await intel.callChain({ symbol: 'chargeCard', depth: 2 });
  assert.equal(viaCkb.metadata.ckb_available, true);
  reset({ unavailable: true });
  const { intel: fallback } = opened();
  const local = await fallback.callChain({ symbol: 'chargeCard', depth: 2 });
  assert.equal(local.metadata.ckb_fallback_reason, 'health_check_failed');
  const names = (steps: { name: string; file: string; depth: number }[]) => steps.map((s) => `${s.depth}:${s.name}@${s.file}`).sort();
  assert.deepEqual(names(viaCkb.callers), names(local.callers));
  assert.deepEqual(names(viaCkb.callees), names(local.callees));
  assert.ok(names(local.callers).includes('1:placeOrder@src/services/orders.ts'));
  assert.ok(names(local.callers).includes('2:handleCreateOrder@src/routes/orders.ts'));
});

test('the ckb-mock-server command speaks MCP over stdio, and CKB_UNAVAILABLE makes its health check fail', async () => {
  const bin = fileURLToPath(new URL('../../bin/ckb-mock-server.mjs', import.meta.url));
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };
  // A generous timeout: starting a TypeScript process on a busy machine takes seconds.
  const healthy = new CkbClient({ command: process.execPath, args: [bin], env, timeout_ms: 30_000 }, { root: FIXTURE_ROOT });
  const opened = await healthy.open();
  assert.equal(opened.status.available, true, JSON.stringify(opened.status));
  const [symbol] = (await opened.api?.searchSymbols('withRetry')) ?? [];
  assert.deepEqual(symbol?.location, { fileId: 'src/lib/retry.ts', startLine: 5 });
  await healthy.close();
  const sick = new CkbClient({ command: process.execPath, args: [bin], env: { ...env, CKB_UNAVAILABLE: '1' }, timeout_ms: 30_000 }, { root: path.join(FIXTURE_ROOT, 'src') });
  assert.equal((await sick.open()).status.reason, 'health_check_failed');
  await sick.close();
});
