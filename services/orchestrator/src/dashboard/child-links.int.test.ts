/**
 * The dashboard's links between a run and its child runs, in headless Chromium: a child pipeline
 * step's stage links to its child run, whose page links back to its parent; a failed step whose
 * fallback stood in says so.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { finishedRun, registerPipeline, startRun, stageOf } from '../testing/pipelines.js';
import { startTestStack, TEST_API_KEY, type TestStack } from '../testing/stack.js';
import { launchBrowser, signIn, withPage } from './testing/browser.js';

let stack: TestStack;
let browser: Browser;
before(async () => {
  [stack, browser] = await Promise.all([startTestStack({ label: 'dashboard-children' }), launchBrowser()]);
});
after(async () => {
  await browser?.close();
  await stack?.close();
});

test("a run's page links to its child run, whose page links back, and shows the fallback that stood in", async (t) => {
  const topic = { type: 'object', required: ['topic'], properties: { topic: { type: 'string' }, depth: { type: 'integer' } } };
  await registerPipeline(stack, { name: 'dl-child', input: topic, steps: { look: { tool: 'search_relevant_information', args: { topic: 'input.topic', depth: 'input.depth ? input.depth : 1' } } } });
  await registerPipeline(stack, {
    name: 'dl-parent',
    input: topic,
    steps: {
      ask: { pipeline: 'dl-child', args: { topic: 'input.topic' } },
      risky: { pipeline: 'dl-child', args: { topic: 'input.topic', depth: 50 }, on_error: 'spare' },
      spare: { tool: 'search_relevant_information', args: { topic: "'spare'", depth: 1 } },
    },
  });
  const run = await finishedRun(stack, await startRun(stack, 'dl-parent', { topic: 'a harbour' }));
  assert.equal(run.status, 'completed', JSON.stringify(run.error));
  const childId = stageOf(run, 'ask')?.child_run as string;
  await withPage(t, browser, async (page) => {
    await signIn(page, { url: stack.api.url, key: TEST_API_KEY });
    await page.getByRole('heading', { name: 'Runs' }).waitFor();
    await page.goto(`${stack.api.url}/#/runs/${run.run_id}`);
    await page.locator('[data-stage="risky"][data-status="failed"]').getByText('fallback spare stood in').waitFor();
    await page.locator('[data-stage="ask"] a.child-run').click();
    await page.waitForURL(`**/#/runs/${childId}`);
    await page.locator('.run-head a.parent-run').waitFor();
    assert.match(await page.locator('.run-head').innerText(), /child of run_\w+… \(ask\)/);
    await page.locator('.run-head a.parent-run').click();
    await page.waitForURL(`**/#/runs/${run.run_id}`);
    await page.locator('[data-stage="ask"] a.child-run').waitFor();
  });
});
