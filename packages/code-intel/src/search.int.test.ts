import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { ArgumentError } from './args.js';
import { SymbolNotFoundError } from './call-chain.js';
import { createCodeIntel } from './code-intel.js';
import { FIXTURE_ROOT } from './test-kit.js';

const intel = createCodeIntel({ root: FIXTURE_ROOT, dataDir: null });
after(() => intel.close());

test('keyword search ranks chunks by BM25 and answers their lines', async () => {
  const answer = await intel.search({ query: 'token bucket refill', mode: 'keyword', top_k: 3 });
  assert.equal(answer.mode, 'keyword');
  const [best] = answer.results;
  assert.equal(best?.file, 'src/middleware/rate-limit.ts');
  assert.equal(best?.start_line, 1);
  assert.ok(best && best.end_line >= 29 && best.content.includes('refillPerSecond'));
  assert.ok(answer.results.length <= 3 && answer.total >= answer.results.length);
});

test('identifiers match their parts: a search for "round half even" finds roundHalfEven', async () => {
  const answer = await intel.search({ query: 'round half even', mode: 'keyword', top_k: 1 });
  assert.equal(answer.results[0]?.file, 'src/utils/money.js');
});

test('vector search scores by cosine similarity, and hybrid fuses both by rank', async () => {
  const vector = await intel.search({ query: 'churn rate of customers', mode: 'vector', top_k: 3 });
  assert.equal(vector.results[0]?.file, 'analytics/metrics.py');
  assert.ok((vector.results[0]?.score ?? 0) > 0 && (vector.results[0]?.score ?? 2) <= 1);
  const hybrid = await intel.search({ query: 'churn rate of customers' });
  assert.equal(hybrid.mode, 'hybrid');
  assert.equal(hybrid.results[0]?.file, 'analytics/metrics.py');
  assert.ok(hybrid.results.length <= 10);
});

test('path_prefix keeps results under one folder', async () => {
  const answer = await intel.search({ query: 'order', path_prefix: 'analytics/' });
  assert.ok(answer.results.length > 0);
  assert.ok(answer.results.every((r) => r.file.startsWith('analytics/')));
});

test('search refuses an empty query and an unknown mode', async () => {
  await assert.rejects(intel.search({ query: '' }), (error: unknown) => error instanceof ArgumentError && error.message === 'query must not be empty');
  await assert.rejects(intel.search({ query: 'x', mode: 'fuzzy' }), (error: unknown) => error instanceof ArgumentError && error.message === 'mode must be hybrid, keyword or vector');
});

test('a call chain follows callers and callees across files, with the step each came through', async () => {
  const chain = await intel.callChain({ symbol: 'placeOrder', depth: 2 });
  assert.deepEqual(chain.definitions, [{ name: 'placeOrder', kind: 'function', file: 'src/services/orders.ts', line: 15 }]);
  const callers = chain.callers.map((s) => `${s.depth} ${s.name} ${s.file} via ${s.via}`);
  assert.ok(callers.includes('1 handleCreateOrder src/routes/orders.ts via placeOrder'), callers.join('\n'));
  assert.ok(callers.includes('2 routes src/server.ts via handleCreateOrder'), callers.join('\n'));
  const callees = chain.callees.map((s) => `${s.depth} ${s.name} ${s.file}`);
  for (const expected of ['1 computeTotal src/services/pricing.ts', '1 chargeCard src/payments/gateway.ts', '1 loadConfig src/config.ts', '2 withRetry src/lib/retry.ts', '2 roundHalfEven src/utils/money.js']) {
    assert.ok(callees.includes(expected), `${expected} in\n${callees.join('\n')}`);
  }
  assert.equal(chain.metadata.fusion_depth, 2);
  assert.equal(chain.metadata.ckb_fallback_reason, 'disabled');
  assert.equal(chain.metadata.total_candidates, chain.callers.length + chain.callees.length);
});

test('call chains work in Python, and direction and depth limit the walk', async () => {
  const chain = await intel.callChain({ symbol: 'load_orders', direction: 'callers', depth: 1 });
  assert.deepEqual(chain.callees, []);
  assert.deepEqual(chain.callers.map((s) => `${s.name} ${s.file}`), ['build_report analytics/report.py']);
  const deeper = await intel.callChain({ symbol: 'load_orders', direction: 'callers', depth: 2 });
  assert.ok(deeper.callers.some((s) => s.name === 'main' && s.file === 'analytics/cli.py' && s.depth === 2));
});

test('a method is named with its container, and an unknown symbol is not found', async () => {
  const chain = await intel.callChain({ symbol: 'usersRepository.findByEmail', direction: 'callers', depth: 1 });
  assert.deepEqual(chain.definitions.map((d) => `${d.container}.${d.name}`), ['usersRepository.findByEmail']);
  await assert.rejects(intel.callChain({ symbol: 'noSuchFunction' }), SymbolNotFoundError);
  await assert.rejects(intel.callChain({ symbol: 'placeOrder', depth: 6 }), /depth must be an integer from 1 to 5/);
});
