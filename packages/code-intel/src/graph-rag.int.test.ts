import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { ArgumentError } from './args.js';
import { createCodeIntel } from './code-intel.js';
import { assertValidAnswer, FIXTURE_ROOT } from './test-kit.js';

// The fixture is read, never written: the index stays in memory.
const intel = createCodeIntel({ root: FIXTURE_ROOT, dataDir: null });
after(() => intel.close());

/** A dozen questions about the fixture, each with the files that answer it. */
const QUERIES: [string, string[]][] = [
  ['rate limiting with a token bucket', ['src/middleware/rate-limit.ts']],
  ['hash and verify passwords with scrypt and a salt', ['src/lib/password.ts']],
  ['sign and verify JWT session tokens', ['src/lib/jwt.ts']],
  ['retry with exponential backoff and jitter', ['src/lib/retry.ts']],
  ["charge the customer's card through the payment processor", ['src/payments/gateway.ts']],
  ['apply coupon discount and tax to the order total', ['src/services/pricing.ts']],
  ["banker's rounding of cents", ['src/utils/money.js']],
  ['database connection pool', ['src/db/connection.js']],
  ['monthly revenue and churn metrics', ['analytics/metrics.py']],
  ['read the orders CSV export', ['analytics/loader.py']],
  ['shopping cart saved in localStorage', ['web/cart.js']],
  ['login with email and password returns a token', ['src/services/users.ts', 'src/routes/users.ts']],
  ['require a bearer token for protected routes', ['src/middleware/auth.ts']],
  ['print the sales report from the command line', ['analytics/cli.py']],
  ['place an order: price the items, take the payment, save the order', ['src/services/orders.ts', 'src/services/pricing.ts', 'src/payments/gateway.ts', 'src/db/repository.ts']],
];

async function recallAt5(fusion_depth: number): Promise<number> {
  let sum = 0;
  for (const [query, answers] of QUERIES) {
    const answer = await intel.graphRag({ query, top_k: 5, budget: 100_000, fusion_depth });
    assertValidAnswer(answer);
    const files = answer.candidates.map((c) => c.file);
    sum += answers.filter((file) => files.includes(file)).length / answers.length;
  }
  return sum / QUERIES.length;
}

test('recall@5 over a dozen questions with known answer files stays above its floor, fused or not', async (t) => {
  const vectorOnly = await recallAt5(0);
  const fused = await recallAt5(1);
  const twoHops = await recallAt5(2);
  t.diagnostic(`recall@5 on ${QUERIES.length} queries: vector only ${vectorOnly.toFixed(3)}, fusion depth 1 ${fused.toFixed(3)}, depth 2 ${twoHops.toFixed(3)}`);
  assert.ok(vectorOnly >= 0.85, `vector only ${vectorOnly}`);
  assert.ok(fused >= 0.9, `fused ${fused}`);
  assert.ok(fused >= vectorOnly, 'fusion does not lose what vectors find');
});

test('fusion finds an answer file that vector search alone misses', async () => {
  const query = 'place an order: price the items, take the payment, save the order';
  const vectorOnly = (await intel.graphRag({ query, top_k: 5, fusion_depth: 0 })).candidates.map((c) => c.file);
  const fused = (await intel.graphRag({ query, top_k: 5, fusion_depth: 1 })).candidates.map((c) => c.file);
  assert.ok(!vectorOnly.includes('src/services/pricing.ts'), vectorOnly.join(', '));
  assert.ok(fused.includes('src/services/pricing.ts'), fused.join(', '));
});

test('graph expansion brings in the files that use the one hit, which vector search alone leaves out', async () => {
  // Only the JWT module names HS256; the files signing and checking tokens import it.
  const flat = (await intel.graphRag({ query: 'HS256', top_k: 5, fusion_depth: 0 })).candidates.map((c) => c.file);
  const expanded = (await intel.graphRag({ query: 'HS256', top_k: 5, fusion_depth: 1 })).candidates.map((c) => c.file);
  assert.equal(expanded[0], 'src/lib/jwt.ts');
  for (const importer of ['src/middleware/auth.ts', 'src/services/users.ts']) {
    assert.ok(expanded.includes(importer) && !flat.includes(importer), `depth 0: ${flat.join(', ')}; depth 1: ${expanded.join(', ')}`);
  }
});

test('every answer validates against seed 001\'s metadata schema, and without CKB says disabled with the local graph', async () => {
  const answer = await intel.graphRag({ query: 'test' });
  assertValidAnswer(answer);
  assert.deepEqual(Object.keys(answer.metadata), ['ckb_available', 'ckb_fallback_reason', 'fallback_mode', 'fusion_depth', 'total_candidates', 'query_time_ms']);
  assert.equal(answer.metadata.ckb_available, false);
  assert.equal(answer.metadata.ckb_fallback_reason, 'disabled');
  assert.equal(answer.metadata.fallback_mode, 'local_graph');
  assert.equal(answer.metadata.fusion_depth, 1, 'the default depth');
  assert.equal(answer.candidates[0]?.relevance, 1);
  const vectorOnly = await intel.graphRag({ query: 'test', fusion_depth: 0 });
  assertValidAnswer(vectorOnly);
  assert.equal(vectorOnly.metadata.fallback_mode, 'vector_only');
});

test('ckb_integration.enabled = false answers disabled even with a command configured', async () => {
  const off = createCodeIntel({ root: FIXTURE_ROOT, dataDir: null, ckb: { enabled: false, command: 'ckb-mock-server' } });
  const answer = await off.graphRag({ query: 'retry' });
  assertValidAnswer(answer);
  assert.equal(answer.metadata.ckb_fallback_reason, 'disabled');
  await off.close();
});

test('candidates are trimmed to the token budget and to top_k', async () => {
  const wide = await intel.graphRag({ query: 'order', top_k: 8, budget: 100_000 });
  assert.equal(wide.candidates.length, 8);
  const tight = await intel.graphRag({ query: 'order', top_k: 8, budget: 120 });
  const tokens = tight.candidates.reduce((sum, c) => sum + Math.ceil(c.content.length / 4), 0);
  assert.ok(tokens <= 120, `${tokens} tokens`);
  assert.ok(tight.candidates.length >= 1 && tight.candidates.length < 8);
  assert.equal(tight.metadata.total_candidates, wide.metadata.total_candidates, 'the budget trims what is returned, not what was found');
});

test('bad arguments are refused with a message naming the argument and the rule', async () => {
  const refusal = async (args: Record<string, unknown>) => {
    try {
      await intel.graphRag(args);
    } catch (error) {
      assert.ok(error instanceof ArgumentError);
      return error.message;
    }
    assert.fail(`accepted ${JSON.stringify(args)}`);
  };
  assert.equal(await refusal({ query: '' }), 'query must not be empty');
  assert.equal(await refusal({ query: '   ' }), 'query must not be empty');
  assert.equal(await refusal({}), 'query is required');
  assert.equal(await refusal({ query: 'x', fusion_depth: 6 }), 'fusion_depth must be an integer from 0 to 5');
  assert.equal(await refusal({ query: 'x', fusion_depth: 1.5 }), 'fusion_depth must be an integer from 0 to 5');
  assert.equal(await refusal({ query: 'x', budget: 0 }), 'budget must be an integer from 1 to 200000');
  assert.equal(await refusal({ query: 'x', top_k: 0 }), 'top_k must be an integer from 1 to 50');
  assert.equal(await refusal({ query: 'x', colour: 'red' }), 'unknown argument colour');
});
