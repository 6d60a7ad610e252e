/**
 * An agent stage's conversation on the dashboard's run page, in a real headless browser against
 * the whole stack: the shipped research agent on the offline model (slowed, so that its calls
 * are seen waiting for their results), and an agent on a scripted stub model whose text and
 * tool results are markup meant to run.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startScriptedModel, type ScriptedModel } from '@switchyard/models/testing';
import { registerPipeline, startRun } from '../testing/pipelines.js';
import { startTestStack, TEST_API_KEY, type TestStack } from '../testing/stack.js';
import { launchBrowser, signIn, withPage } from './testing/browser.js';

/** What the stub model writes everywhere it can: in a tool's name, a tool's arguments and its answer. */
const ATTACK = '<img src=x onerror="window.__injected = true">';

let stack: TestStack;
let browser: Browser;
let model: ScriptedModel;
before(async () => {
  model = await startScriptedModel({
    script: (request) =>
      request.messages.some((m) => m.role === 'tool')
        ? { content: `Nothing found. ${ATTACK} <b>bold</b>` }
        : { toolCalls: [{ name: `x${ATTACK}`, arguments: '{}' }, { name: 'search_relevant_information', arguments: JSON.stringify({ topic: `kites ${ATTACK}` }) }] },
  });
  [stack, browser] = await Promise.all([startTestStack({ label: 'agent-conversation', agents: { moreModels: { scripted: model.baseUrl } } }), launchBrowser()]);
});
after(async () => {
  await browser?.close();
  await stack?.close();
  await model?.close();
});

async function openRun(page: Page, runId: string): Promise<void> {
  await signIn(page, { url: stack.api.url, key: TEST_API_KEY });
  await page.getByRole('heading', { name: 'Runs' }).waitFor();
  await page.goto(`${stack.api.url}/#/runs/${runId}`);
}

interface Transcript {
  messages: { role: string; turn?: number; content: string | null; tool_calls?: { id: string; tool: string; arguments: string }[]; call_id?: string; tool?: string; is_error?: boolean }[];
}

test('the research agent\'s conversation appears on its run page as it happens: calls waiting, then their results, then the answer', async (t) => {
  // Each tool call takes a while and the answer streams slowly, so that each moment can be seen
  // (a call's pending moment lasts 5 s: a loaded machine's page may take seconds to show it).
  for (const service of [stack.tools.services.search, stack.tools.services.outline]) service.faults.latencyMs = 5000;
  stack.tools.model.faults.tokenDelayMs = 20;
  t.after(() => {
    for (const service of [stack.tools.services.search, stack.tools.services.outline]) service.faults.latencyMs = 0;
    stack.tools.model.faults.tokenDelayMs = 0;
  });
  const runId = await startRun(stack, 'research-agent', { topic: 'the history of tea' });
  await withPage(t, browser, async (page) => {
    await openRun(page, runId);
    const conversation = page.locator('[data-agent="research"]');
    await conversation.getByText('You are a careful researcher', { exact: false }).waitFor();
    await conversation.getByText('Find relevant information and an outline about the history of tea').waitFor();

    // Turn 1's calls show while their tools are still working.
    const search = conversation.locator('[data-turn="1"] [data-tool="search_relevant_information"]');
    await search.locator('.call-result.pending').waitFor();
    assert.match((await search.locator('.call-args').textContent()) ?? '', /tea/, 'the arguments as the model wrote them');
    await conversation.locator('[data-turn="1"] [data-tool="generate_structured_outline"]').waitFor();

    // Then their results, not errors.
    await search.locator('.call-result[data-error="false"] .result-text').waitFor({ timeout: 30_000 });
    assert.match((await search.locator('.result-text').textContent()) ?? '', /tea/i);
    await conversation.locator('[data-turn="1"] [data-tool="generate_structured_outline"] .call-result[data-error="false"]').waitFor({ timeout: 30_000 });

    // Turn 2 streams its answer before it is recorded, and ends as the answer.
    await conversation.locator('[data-turn="2"].streaming .turn-text', { hasText: /\S/ }).waitFor({ timeout: 30_000 });
    const answer = conversation.locator('[data-turn="2"].answer');
    await answer.waitFor({ timeout: 30_000 });
    await page.locator('.run-head [data-status="completed"]').waitFor({ timeout: 30_000 });

    // What the page shows at the end is the transcript GET /v1/runs/{id} gives.
    const run = (await stack.json<{ result: { answer: string }; stages: { name: string; agent: Transcript & { turns: number } }[] }>(`/v1/runs/${runId}`)).body;
    const transcript = run.stages.find((s) => s.name === 'research')?.agent;
    assert.ok(transcript);
    const final = transcript.messages.findLast((m) => m.role === 'assistant');
    assert.equal((await answer.locator('.turn-text').textContent())?.trim(), final?.content?.trim());
    assert.match((await answer.locator('.turn-text').textContent()) ?? '', new RegExp(run.result.answer.slice(0, 20).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
    assert.equal(await conversation.locator('[data-turn]').count(), transcript.turns);
    assert.equal(await conversation.locator('.call').count(), transcript.messages.filter((m) => m.role === 'tool').length);
    assert.match((await conversation.locator('[data-turn="2"] .turn-head').textContent()) ?? '', /\d+ \+ \d+ tokens/);
    assert.ok(await page.locator('section.live').isHidden(), 'no empty live text panel beside the conversation');
    await page.locator('article.story, section.story').first().waitFor();
  });
});

test('what an agent\'s model and tools write is shown as text on the run page, never run as markup', async (t) => {
  await registerPipeline(stack, {
    name: 'hostile-agent',
    input: { type: 'object', required: ['topic'], properties: { topic: { type: 'string' } } },
    steps: { ask: { agent: { model: 'scripted', prompt: "'Research ' & input.topic", tools: ['search_relevant_information'], max_turns: 3 } } },
  });
  const runId = await startRun(stack, 'hostile-agent', { topic: 'kites' });
  await stack.waitForRun(runId, 30_000);
  await withPage(t, browser, async (page) => {
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    // A Content-Security-Policy violation is reported on the console as an error.
    page.on('console', (message) => message.type() === 'error' && errors.push(`console: ${message.text()}`));
    await openRun(page, runId);
    const conversation = page.locator('[data-agent="ask"]');
    await conversation.locator('[data-turn="2"].answer').waitFor();

    // The refusal of the call to a tool named with markup quotes the name: an error, shown as text.
    const refused = conversation.locator('.call', { has: page.locator('.call-tool', { hasText: `x${ATTACK}` }) });
    await refused.locator('.call-result[data-error="true"]').waitFor();
    assert.match((await refused.locator('.result-text').textContent()) ?? '', /there is no tool x<img src=x onerror=/);
    // The search echoes the topic it was given, markup and all, in a result that is not an error.
    assert.match((await conversation.locator('[data-tool="search_relevant_information"] .call-result[data-error="false"] .result-text').textContent()) ?? '', /kites <img src=x onerror=/);
    // The search's arguments and the model's answer carry it as text too.
    assert.match((await conversation.locator('[data-tool="search_relevant_information"] .call-args').textContent()) ?? '', /kites <img src=x onerror=/);
    assert.equal((await conversation.locator('[data-turn="2"] .turn-text').textContent())?.trim(), `Nothing found. ${ATTACK} <b>bold</b>`);

    assert.equal(await page.locator('main img, main b').count(), 0, 'no element was made from what the agent wrote');
    assert.equal(await page.evaluate('window.__injected === true'), false);
    assert.deepEqual(errors, []);
  });
});
