/**
 * Elicitation in wait_for_run: a client that declared the capability is asked for what the run
 * waits for (elicitation/create with a flat form from the schema) and its answer is applied —
 * an approval with edited arguments, a refusal by declining, a signal's values — while a cancel
 * leaves the run waiting, a nested signal is never asked, and a client without the capability is
 * asked nothing. A session whose key may not answer (`read`, `admin` without `run`) is asked
 * nothing either, and its answer would be refused where it is applied.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { apiKeyList } from '@switchyard/config';
import { createLogger } from '@switchyard/logger';
import { startScriptedModel, type ScriptedModel } from '@switchyard/models/testing';
import { startTestStack, TEST_API_KEY, waitFor, type TestStack } from '@switchyard/orchestrator/testing';
import { approvalScript, registerWaitingPipelines, WAITING_MODEL } from '@switchyard/orchestrator/testing/waiting-runs';
import { startBridgeHttp, type RunningBridge } from './http/serve.js';
import { ok } from './testing/journey.js';

let model: ScriptedModel;
let stack: TestStack;
let bridge: RunningBridge;
const READ_KEY = 'elicit-read-key-0123456789abcdef0123456789';
const ADMIN_KEY = 'elicit-admin-key-0123456789abcdef0123456789';

before(async () => {
  model = await startScriptedModel({ script: approvalScript });
  stack = await startTestStack({ label: 'mcp-elicit', agents: { moreModels: { [WAITING_MODEL]: model.baseUrl } } });
  bridge = await startBridgeHttp({ redisUrl: stack.redisUrl, prefix: stack.prefix, apiKeys: apiKeyList.parse(`${TEST_API_KEY},${READ_KEY}:read,${ADMIN_KEY}:admin`), toolServices: stack.toolConfig, logger: createLogger({ name: 'mcp-elicit-test', level: 'silent' }) });
  await registerWaitingPipelines(stack);
});
after(async () => {
  await bridge?.close();
  await stack?.close();
  await model?.close();
});

type FormParams = Extract<ElicitRequest['params'], { requestedSchema: unknown }>;

/** A client that answers every elicitation with `answer`, recording what it was asked. */
async function connect(answer?: (params: FormParams) => ElicitResult, key = TEST_API_KEY): Promise<{ client: Client; asked: FormParams[] }> {
  const asked: FormParams[] = [];
  const client = new Client({ name: 'elicit-test', version: '1.0.0' }, answer ? { capabilities: { elicitation: {} } } : {});
  if (answer) {
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      const params = request.params as FormParams;
      asked.push(params);
      return answer(params);
    });
  }
  await client.connect(new StreamableHTTPClientTransport(new URL(bridge.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  return { client, asked };
}

const start = async (pipeline: string, input: unknown) => (await stack.json<{ run_id: string }>(`/v1/pipelines/${pipeline}/runs`, { method: 'POST', body: JSON.stringify(input) })).body.run_id;
const waitForRun = (client: Client, runId: string, timeout_s = 30) => ok(client, 'wait_for_run', { run_id: runId, timeout_s });

test("a waiting call is asked with approve, note and the tool's arguments filled with the model's values, and the run completes with the edited ones", async (t) => {
  const { client, asked } = await connect(() => ({ action: 'accept', content: { approve: true, topic: 'lighthouses', depth: 1 } }));
  t.after(() => client.close());
  const runId = await start('inbox-agent', { topic: 'tides' });
  const run = await waitForRun(client, runId);
  assert.equal(run.status, 'completed', JSON.stringify(run.error));
  assert.match(String(run.result), /^told: .*[Ll]ighthouses/);
  assert.equal(asked.length, 1);
  const form = asked[0]?.requestedSchema;
  assert.deepEqual(Object.keys(form?.properties ?? {}).slice(0, 2), ['approve', 'note']);
  assert.deepEqual(form?.properties.topic, { type: 'string', description: 'Story topic to research', minLength: 1, maxLength: 500, default: 'tides' });
  assert.equal((form?.properties.depth as { type: string; default?: number } | undefined)?.type, 'integer');
  assert.equal((form?.properties.depth as { default?: number } | undefined)?.default, 2);
  assert.match(asked[0]?.message ?? '', /search_relevant_information.*I want to search for tides/);
});

test('declining the question refuses the call, and the model reads the refusal', async (t) => {
  const { client } = await connect(() => ({ action: 'decline' }));
  t.after(() => client.close());
  const runId = await start('inbox-agent', { topic: 'storms' });
  const run = await waitForRun(client, runId);
  assert.equal(run.status, 'completed');
  assert.match(String(run.result), /declined when asked/);
});

test("a flat signal is asked with its schema's fields and sent with the values given", async (t) => {
  const { client, asked } = await connect(() => ({ action: 'accept', content: { verdict: 'accept', score: 5 } }));
  t.after(() => client.close());
  const runId = await start('inbox-gate', {});
  const run = await waitForRun(client, runId);
  assert.equal(run.status, 'completed');
  assert.deepEqual(run.result, { verdict: 'accept', score: 5 });
  assert.deepEqual(asked[0]?.requestedSchema.required, ['verdict']);
  assert.deepEqual(asked[0]?.requestedSchema.properties.verdict, { type: 'string', enum: ['accept', 'reject'] });
});

test('cancelling the question leaves the run waiting; a nested signal and a client without elicitation are asked nothing', async (t) => {
  const cancelling = await connect(() => ({ action: 'cancel' }));
  const plain = await connect();
  t.after(async () => {
    await cancelling.client.close();
    await plain.client.close();
  });
  const gate = await start('inbox-gate', {});
  const nested = await start('inbox-nested', {});
  const waited = await waitForRun(cancelling.client, gate, 2);
  assert.equal(waited.timed_out, true);
  assert.equal(waited.status, 'waiting');
  assert.equal(cancelling.asked.length, 1, 'asked once in the call, not again');
  const nestedWait = await waitForRun(cancelling.client, nested, 1);
  assert.equal(nestedWait.status, 'waiting');
  assert.equal(cancelling.asked.length, 1, 'the nested signal was not asked');
  assert.equal((await waitForRun(plain.client, gate, 1)).status, 'waiting');
  for (const runId of [gate, nested]) await stack.json(`/v1/runs/${runId}`, { method: 'DELETE' });
});

test('a read key and an admin-only key are asked nothing and answer nothing through elicitation: the run keeps waiting', async (t) => {
  for (const key of [READ_KEY, ADMIN_KEY]) {
    const accepting = await connect((params): ElicitResult => ({ action: 'accept', content: 'verdict' in params.requestedSchema.properties ? { verdict: 'accept' } : { approve: true } }), key);
    t.after(() => accepting.client.close());
    const gate = await start('inbox-gate', {});
    const agent = await start('inbox-agent', { topic: 'eels' });
    for (const runId of [gate, agent]) await waitFor(() => stack.json<{ items: unknown[] }>(`/v1/inbox?run_id=${runId}`), (inbox) => inbox.body.items.length === 1, 'the run waits');
    for (const runId of [gate, agent]) {
      const waited = await waitForRun(accepting.client, runId, 2);
      assert.equal(waited.status, 'waiting', `${runId}: ${JSON.stringify(waited.error)}`);
      assert.equal(waited.timed_out, true);
    }
    assert.equal(accepting.asked.length, 0, 'the client was asked nothing');
    const inbox = await stack.json<{ items: { run_id: string }[] }>(`/v1/inbox?run_id=${agent}`);
    assert.equal(inbox.body.items.length, 1, 'the call still waits for its approval');
    for (const runId of [gate, agent]) await stack.json(`/v1/runs/${runId}`, { method: 'DELETE' });
  }
});

test("a pipeline's own tool (pipeline_<name>) asks for what its run waits for as wait_for_run does, and answers the completed run", async (t) => {
  const { client, asked } = await connect(() => ({ action: 'accept', content: { approve: true, topic: 'harbours', depth: 1 } }));
  t.after(() => client.close());
  const run = await ok(client, 'pipeline_inbox-agent', { topic: 'quays' });
  assert.equal(run.status, 'completed', JSON.stringify(run));
  assert.match(String(run.result), /^told: .*harbours/);
  assert.equal(asked.length, 1);
  assert.match(asked[0]?.message ?? '', /search_relevant_information.*I want to search for quays/);
});
