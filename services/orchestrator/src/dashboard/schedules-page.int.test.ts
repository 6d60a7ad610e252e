/**
 * The dashboard's Schedules page in headless Chromium against a whole stack: each schedule with
 * its timing, its next run, and the run its last tick started with that run's status.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { registerPipeline } from '../testing/pipelines.js';
import { startTestStack, TEST_API_KEY, type TestStack } from '../testing/stack.js';
import { launchBrowser, signIn, withPage } from './testing/browser.js';

let stack: TestStack;
let browser: Browser;
before(async () => {
  [stack, browser] = await Promise.all([startTestStack({ label: 'dashboard-schedules' }), launchBrowser()]);
});
after(async () => {
  await browser?.close();
  await stack?.close();
});

test('the Schedules page lists each schedule with its next run and its last run, whose link opens the run', async (t) => {
  await registerPipeline(stack, { name: 'page-sched', input: { type: 'object', required: ['topic'] }, steps: { find: { tool: 'search_relevant_information', args: { topic: 'input.topic' } } } });
  const put = (name: string, body: unknown) => stack.json(`/v1/schedules/${name}`, { method: 'PUT', body: JSON.stringify(body) });
  assert.equal((await put('yearly', { pipeline: 'page-sched', cron: '0 0 1 1 *', timezone: 'UTC', input: { topic: 'new year' } })).status, 201);
  assert.equal((await put('each-second', { pipeline: 'page-sched', every: '1s', input: { topic: 'seconds' } })).status, 201);
  t.after(async () => {
    await stack.request('/v1/schedules/each-second', { method: 'DELETE' });
    await stack.request('/v1/schedules/yearly', { method: 'DELETE' });
  });
  await withPage(t, browser, async (page) => {
    await signIn(page, { url: stack.api.url, key: TEST_API_KEY });
    await page.getByRole('heading', { name: 'Runs' }).waitFor();
    await page.getByRole('link', { name: 'Schedules' }).click();
    await page.getByRole('heading', { name: 'Schedules' }).waitFor();
    const yearly = page.locator('[data-schedule="yearly"]');
    await yearly.getByText('cron 0 0 1 1 * (UTC)').waitFor();
    const next = (await yearly.locator('[data-field="next"]').textContent()) ?? '';
    const due = new Date(Date.UTC(new Date().getUTCFullYear() + 1, 0, 1));
    assert.equal(next, await page.evaluate((iso) => new Date(iso).toLocaleString(), due.toISOString()), 'the next run is next 1 January');
    assert.equal(await yearly.locator('[data-field="last"]').textContent(), 'none yet');
    // The page refreshes itself: the interval schedule's last run shows once it has completed.
    const last = page.locator('[data-schedule="each-second"] [data-field="last"]');
    await last.locator('[data-status="completed"]').waitFor();
    await last.locator('a').click();
    await page.waitForURL(/#\/runs\/run_[0-9a-f]{32}$/);
  });
});
