/**
 * The dashboard in a real headless browser (Playwright driving Debian's chromium) against the
 * whole stack: real Redis, workers and reference tool services, the writers slowed down so that
 * text arrives over visible time.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Queue } from 'bullmq';
import type { Browser, Page } from 'playwright-core';
import { createRedisClient, REPO_ROOT } from '@switchyard/redis';
import { startTestStack, TEST_API_KEY, type TestStack } from '../testing/stack.js';
import { launchBrowser, signIn, withPage } from './testing/browser.js';

let stack: TestStack;
let browser: Browser;
before(async () => {
  [stack, browser] = await Promise.all([startTestStack({ label: 'dashboard' }), launchBrowser()]);
});
after(async () => {
  await browser?.close();
  await stack?.close();
});

const STAGES = ['search', 'outline', 'write.introduction', 'write.development', 'write.climax', 'write.conclusion', 'polish'];

async function openDashboard(page: Page): Promise<void> {
  await signIn(page, { url: stack.api.url, key: TEST_API_KEY });
  await page.getByRole('heading', { name: 'Runs' }).waitFor();
}

test('a wrong key shows an error and no data', async (t) => {
  await stack.json('/v1/stories', { method: 'POST', body: JSON.stringify({ topic: 'a run no stranger may see' }) });
  await withPage(t, browser, async (page) => {
    const listings: number[] = [];
    page.on('response', (res) => res.url().includes('/v1/') && listings.push(res.status()));
    await signIn(page, { url: stack.api.url, key: 'not-the-key' });
    await page.getByRole('alert').filter({ hasText: 'That API key is not valid.' }).waitFor();
    assert.equal(await page.getByLabel('API key').isVisible(), true, 'the key is asked again');
    assert.equal(await page.locator('table').count(), 0, 'no table of runs');
    assert.equal(await page.getByText('a run no stranger may see').count(), 0);
    assert.ok(listings.every((status) => status === 401), `every API answer was 401: ${listings.join(', ')}`);
  });
});

test('before the key is given, the page makes no request that fails and logs no error', async (t) => {
  await withPage(t, browser, async (page) => {
    const failed: string[] = [];
    page.on('response', (res) => res.status() >= 400 && failed.push(`${res.status()} ${res.url()}`));
    page.on('console', (message) => message.type() === 'error' && failed.push(`console: ${message.text()}`));
    await page.goto(`${stack.api.url}/`);
    await page.getByLabel('API key').waitFor();
    assert.deepEqual(failed, []);
  });
});

test('given the key, a story started from the dashboard shows its stages and live text as they arrive, then renders', async (t) => {
  stack.tools.services.writing.faults.chunkDelayMs = 40;
  t.after(() => (stack.tools.services.writing.faults.chunkDelayMs = 0));
  await withPage(t, browser, async (page) => {
    await openDashboard(page);
    await page.getByLabel('Topic').fill('a lighthouse keeper who collects lost letters');
    await page.getByRole('button', { name: 'Start story' }).click();
    await page.waitForURL(/#\/runs\/run_[0-9a-f]{32}$/);
    const runId = /run_[0-9a-f]{32}/.exec(page.url())?.[0] ?? '';
    await page.getByRole('heading', { name: 'a lighthouse keeper who collects lost letters' }).waitFor();
    // Its flow control: a single run started by a person, class 3, under the dashboard's key.
    await page.locator('.flow-facts', { hasText: /^priority 3 · key key:[0-9a-f]{16}/ }).waitFor();

    // Stages appear in the timeline, and a writer is seen running while its text streams in.
    for (const stage of STAGES) await page.locator(`[data-stage="${stage}"]`).waitFor();
    await page.locator('[data-stage^="write."][data-status="running"]').first().waitFor();
    const section = page.locator('[data-section="write.introduction/introduction"] .section-text');
    await section.waitFor();
    const early = (await section.textContent()) ?? '';
    // More text arrives while the page is watched.
    await page.locator('[data-section="write.introduction/introduction"] .section-text', { hasText: new RegExp(`[\\s\\S]{${early.length + 200}}`) }).waitFor();
    assert.equal(await page.locator('article.story').count(), 0, 'the story is not rendered while its text is still arriving');
    // The README's picture is this moment: SWITCHYARD_DOCS_IMAGES=1 npm test -- dashboard/dashboard.int writes it.
    if (process.env.SWITCHYARD_DOCS_IMAGES === '1') await page.screenshot({ path: path.join(REPO_ROOT, 'docs/images/dashboard.png') });

    // The finished story renders: its title and paragraphs, every stage completed, progress full.
    const title = page.locator('article.story h2');
    await title.waitFor({ timeout: 60_000 });
    const run = (await stack.json<{ status: string; result: { title: string; content: string } }>(`/v1/runs/${runId}`)).body;
    assert.equal(run.status, 'completed');
    assert.equal(await title.textContent(), run.result.title);
    const paragraphs = await page.locator('article.story p:not(.muted)').allTextContents();
    assert.ok(paragraphs.length >= 4, `${paragraphs.length} paragraphs`);
    assert.ok(run.result.content.includes(paragraphs[0] ?? '-'), 'the first paragraph is the story\'s');
    await page.locator('[data-stage="polish"][data-status="completed"]').waitFor();
    for (const stage of STAGES) assert.equal(await page.locator(`[data-stage="${stage}"]`).getAttribute('data-status'), 'completed', stage);
    await page.locator('[role="progressbar"][aria-valuenow="100"]').first().waitFor();
    assert.equal(await page.getByRole('button', { name: 'Cancel run' }).isVisible(), false, 'an ended run has no cancel button');

    // The runs list shows it, and filters by pipeline and status.
    await page.getByRole('link', { name: 'Runs', exact: true }).click();
    const row = page.locator(`tr[data-run-id="${runId}"]`);
    await row.waitFor();
    await page.locator('#filter-status').selectOption('failed');
    await row.waitFor({ state: 'detached' });
    await page.locator('#filter-status').selectOption('completed');
    await page.locator('#filter-pipeline').selectOption('story');
    await row.waitFor();
    await page.locator('#filter-pipeline').selectOption('aceflow');
    await row.waitFor({ state: 'detached' });
  });
});

test('cancelling a run from its page cancels it', async (t) => {
  stack.tools.services.writing.faults.chunkDelayMs = 300;
  t.after(() => (stack.tools.services.writing.faults.chunkDelayMs = 0));
  const runId = (await stack.json<{ run_id: string }>('/v1/stories', { method: 'POST', body: JSON.stringify({ topic: 'a clockmaker who repairs lost hours' }) })).body.run_id;
  await withPage(t, browser, async (page) => {
    await openDashboard(page);
    await page.goto(`${stack.api.url}/#/runs/${runId}`);
    await page.locator('[data-section] .section-text').first().waitFor(); // a writer is streaming
    await page.getByRole('button', { name: 'Cancel run' }).click();
    await page.locator('.run-head [data-status="cancelled"]').waitFor();
    await page.getByRole('button', { name: 'Cancel run' }).waitFor({ state: 'hidden' });
    await page.locator('[data-stage="polish"][data-status="cancelled"]').waitFor();
    assert.equal((await stack.json<{ status: string }>(`/v1/runs/${runId}`)).body.status, 'cancelled');
  });
});

test('what a run holds is shown as text, never run as markup', async (t) => {
  const topic = '<img src=x onerror="window.__injected = true"> a <b>bold</b> topic';
  const runId = (await stack.json<{ run_id: string }>('/v1/stories', { method: 'POST', body: JSON.stringify({ topic }) })).body.run_id;
  await withPage(t, browser, async (page) => {
    await openDashboard(page);
    await page.locator(`tr[data-run-id="${runId}"]`).getByText(topic).waitFor();
    await page.goto(`${stack.api.url}/#/runs/${runId}`);
    await page.getByRole('heading', { name: topic, level: 1 }).waitFor();
    assert.equal(await page.locator('main img, main b').count(), 0, 'no element was made from the topic');
    assert.equal(await page.evaluate('window.__injected === true'), false);
  });
});

test('Bull Board at /admin/queues lists every queue with the session, a queue made later included, and is refused without it', async (t) => {
  // A tool service's queue this orchestrator was not configured with, as a worker configured later makes.
  const connection = createRedisClient(stack.redisUrl);
  const later = new Queue('tool-reviewer', { connection, prefix: stack.prefix });
  await later.add('step', { run_id: 'run_x' });
  t.after(async () => {
    await later.close();
    await connection.quit();
  });
  await withPage(t, browser, async (page) => {
    const refused = await page.goto(`${stack.api.url}/admin/queues`);
    assert.equal(refused?.status(), 401);
    assert.doesNotMatch(await page.content(), /tool-writing/);

    await openDashboard(page);
    await page.getByRole('link', { name: 'Queues' }).click();
    await page.waitForURL(/\/admin\/queues/);
    for (const name of ['tool-search', 'tool-outline', 'tool-writing', 'tool-editing', 'kind-aceflow-stage', 'run-dispatch', 'tool-reviewer']) {
      await page.getByRole('link', { name, exact: true }).first().waitFor();
    }
  });
});
