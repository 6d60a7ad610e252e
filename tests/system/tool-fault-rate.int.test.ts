/**
 * Tool services failing at a rate, not once: 30 % of calls answer 503 and 20 % of streams are cut.
 * A healthy-but-flaky service must keep being called (the breaker opens on a failure ratio, not on
 * a streak), so every story completes, and no section's text is doubled by a restarted stream.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { readSse } from '../../services/orchestrator/src/testing/events.js';
import { startTestStack, type TestStack } from '../../services/orchestrator/src/testing/stack.js';
import { checkStoryText } from '../../services/orchestrator/src/testing/text-checks.js';

const STORIES = 24;
let stack: TestStack;

before(async () => {
  stack = await startTestStack({ label: 'fault-rate', clientRetries: 3, faults: { failureRate: 0.3, streamCutRate: 0.2 } });
});
after(() => stack.close());

test('a batch of stories completes with 30 % of tool calls failing and 20 % of streams cut, and no text is doubled', async () => {
  const items = Array.from({ length: STORIES }, (_, i) => ({ topic: `a flaky lighthouse ${i}` }));
  const created = await stack.json<{ batch_id: string; run_ids: string[] }>('/v1/batches', { method: 'POST', body: JSON.stringify({ items }) });
  assert.equal(created.status, 202);
  await readSse(await stack.request(`/v1/batches/${created.body.batch_id}/events`), (e) => e.event === 'done');

  const figures = { stories: STORIES, completed: 0, failed: 0, resets: 0, retried_stages: 0, doubled_sections: 0, failures: [] as string[] };
  for (const runId of created.body.run_ids) {
    const run = await stack.waitForRun(runId, 120_000);
    if (run.status !== 'completed') {
      figures.failed += 1;
      figures.failures.push(`${runId}: ${JSON.stringify(run.error)}`);
      continue;
    }
    figures.completed += 1;
    const events = await readSse(await stack.request(`/v1/runs/${runId}/events`));
    figures.retried_stages += events.filter((e) => e.event === 'error' && (JSON.parse(e.data) as { will_retry?: boolean }).will_retry).length;
    const check = checkStoryText(events, run.result as { sections: { name: string; content: string }[] });
    figures.resets += check.resets;
    figures.doubled_sections += check.mismatched.length;
  }
  const breakers = Object.fromEntries(Object.entries(stack.tools.services).map(([name, service]) => [name, service.faults.failureRate]));
  process.stdout.write(`# tool faults at a rate: ${JSON.stringify({ ...figures, failure_rates: breakers })}\n`);
  assert.deepEqual(figures.failures, [], 'every story completes');
  assert.equal(figures.completed, STORIES);
  assert.equal(figures.doubled_sections, 0, 'no section text is doubled');
  assert.ok(figures.resets > 0, 'streams really were cut and restarted');
});
