/**
 * The CLI's commands for people's answers and schedules against a real stack: `inbox`, `approve`
 * (edited arguments, a note, a refusal), `signal`, `schedules ls|show|apply|pause|resume|delete`,
 * each with --json and the documented exit codes (3 when the API refuses, 2 for bad input).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startTestStack, TEST_API_KEY, type TestStack } from '@switchyard/orchestrator/testing';
import { cliEnv, runCli, type CliResult } from './testing.js';

let stack: TestStack;
let env: NodeJS.ProcessEnv;
const dir = mkdtempSync(path.join(os.tmpdir(), 'switchyard-cli-waits-'));
const cli = (...args: string[]) => runCli(args, { env });
const json = <T>(result: CliResult): T => {
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout) as T;
};
interface Inbox { items: { run_id: string; kind: string; key: string; tool?: string; arguments?: Record<string, unknown> }[] }
const waitForInbox = async (runId: string) => {
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
    const items = json<Inbox>(await cli('inbox', '--run', runId, '--json')).items;
    if (items.length > 0) return items;
  }
  throw new Error(`nothing of ${runId} in the inbox`);
};

before(async () => {
  stack = await startTestStack({ label: 'cli-waits' });
  env = cliEnv({ SWITCHYARD_URL: stack.api.url, SWITCHYARD_KEY: TEST_API_KEY });
  assert.equal((await cli('pipelines', 'apply', '-f', 'docs/pipelines/guarded-research.yaml')).code, 0);
  const gate = path.join(dir, 'gate.yaml');
  writeFileSync(gate, 'name: cli-gate\nsteps:\n  review:\n    wait:\n      signal: review\n      schema: { type: object, required: [verdict], properties: { verdict: { enum: [accept, reject] } } }\noutput: steps.review\n');
  assert.equal((await cli('pipelines', 'apply', '-f', gate)).code, 0);
});
after(() => stack.close());

test('inbox lists a call waiting for approval; approve --set edits its arguments, a second answer exits 3, and the run completes', async () => {
  const runId = (await cli('run', 'guarded-research', '--set', 'topic=tea')).stdout.trim();
  const [item] = await waitForInbox(runId);
  assert.equal(item?.tool, 'generate_structured_outline');
  assert.deepEqual(item?.arguments, { topic: 'tea' }, 'inbox --json gives the arguments as the object approve takes');
  const table = await cli('inbox', '--pipeline', 'guarded-research');
  assert.match(table.stdout, /^RUN +PIPELINE +STAGE +KIND +KEY +WAITS FOR +SINCE$/m);
  assert.match(table.stdout, new RegExp(`^${runId} +guarded-research +research +approval +${item?.key} +generate_structured_outline `, 'm'));
  const bad = await cli('approve', runId, item?.key ?? '', '--arguments', '{not json');
  assert.equal(bad.code, 2, bad.stderr);
  const approved = await cli('approve', runId, item?.key ?? '', '--set', 'topic=green tea', '--note', 'narrower');
  assert.equal(approved.code, 0, approved.stderr);
  assert.equal(approved.stdout, `${runId} ${item?.key}: approved (recorded)\n`);
  const again = await cli('approve', runId, item?.key ?? '', '--reject');
  assert.equal(again.code, 3);
  assert.match(again.stderr, /: 409 (approval_decided|run_finished): /, 'a second answer is refused, decided or its run ended');
  const followed = json<{ status: string; stages: { agent?: { messages: { role: string; tool_calls?: { arguments: string }[] }[] } }[] }>(await cli('runs', 'follow', runId, '--json', '--quiet'));
  assert.equal(followed.status, 'completed');
});

test('signal sends a payload to a wait step; a payload its schema refuses exits 3 naming the field', async () => {
  const runId = (await cli('run', 'cli-gate')).stdout.trim();
  await waitForInbox(runId);
  const refused = await cli('signal', runId, 'review', '--set', 'verdict=maybe');
  assert.equal(refused.code, 3, refused.stderr);
  assert.match(refused.stderr, /verdict/);
  const sent = json<{ status: string }>(await cli('signal', runId, 'review', '--payload', '{"verdict":"accept"}', '--json'));
  assert.ok(sent.status);
  const run = json<{ status: string; result: unknown }>(await cli('runs', 'follow', runId, '--json', '--quiet'));
  assert.deepEqual([run.status, run.result], ['completed', { verdict: 'accept' }]);
});

test('schedules apply -f, ls, show, pause, resume and delete; an unknown one exits 3', async () => {
  const file = path.join(dir, 'nightly.yaml');
  writeFileSync(file, 'name: cli-nightly\npipeline: cli-gate\ncron: "30 2 * * *"\ntimezone: Europe/Paris\ncatch_up: none\n');
  const applied = await cli('schedules', 'apply', '-f', file);
  assert.equal(applied.code, 0, applied.stderr);
  assert.match(applied.stdout, /^cli-nightly: cron 30 2 \* \* \* \(Europe\/Paris\), next /);
  assert.match((await cli('schedules', 'ls')).stdout, /^cli-nightly +cli-gate +cron 30 2 \* \* \* \(Europe\/Paris\) +active /m);
  const shown = await cli('schedules', 'show', 'cli-nightly');
  assert.match(shown.stdout, /^catch up +none$/m);
  assert.equal(json<{ paused: boolean }>(await cli('schedules', 'pause', 'cli-nightly', '--json')).paused, true);
  assert.equal(json<{ paused: boolean }>(await cli('schedules', 'resume', 'cli-nightly', '--json')).paused, false);
  assert.equal((await cli('schedules', 'delete', 'cli-nightly')).stdout, 'cli-nightly deleted\n');
  const gone = await cli('schedules', 'show', 'cli-nightly');
  assert.equal(gone.code, 3);
});
