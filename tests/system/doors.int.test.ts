/**
 * One failure, one answer, whichever door it comes through: the same refusal over HTTP, over MCP
 * (an `isError` tool result holding the tool's own `{error:{code,message,details}}`), through the
 * typed client (`ApiError`) and from the CLI with `--json` (the API's body on stdout, exit 3) gives
 * the same code and the same `details` — `details.problems` with the same paths, an additional
 * property named in its message.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ApiError, createSwitchyardClient, type SwitchyardClient } from '@switchyard/client';
import { createLogger } from '@switchyard/logger';
import { startBridgeHttp, type RunningBridge } from '@switchyard/mcp-bridge';
import { startScriptedModel, type ScriptedModel } from '@switchyard/models/testing';
import { approvalScript, registerWaitingPipelines, WAITING_MODEL } from '../../services/orchestrator/src/testing/waiting-runs.js';
import { startRun } from '../../services/orchestrator/src/testing/pipelines.js';
import { startTestStack, TEST_API_KEY, waitFor, type TestStack } from '../../services/orchestrator/src/testing/stack.js';
import { cliEnv, runCli } from '../../packages/cli/src/testing.js';

interface ErrorBody {
  code: string;
  message: string;
  details: Record<string, unknown>;
}
/** What each door answered, by door. */
type Answers = Record<'http' | 'mcp' | 'client' | 'cli', ErrorBody>;

let model: ScriptedModel;
let stack: TestStack;
let bridge: RunningBridge;
let mcp: Client;
let client: SwitchyardClient;
let runId: string;
let callId: string;

before(async () => {
  model = await startScriptedModel({ script: approvalScript });
  stack = await startTestStack({ label: 'doors', agents: { moreModels: { [WAITING_MODEL]: model.baseUrl } } });
  bridge = await startBridgeHttp({ redisUrl: stack.redisUrl, prefix: stack.prefix, apiKeys: [TEST_API_KEY], toolServices: stack.toolConfig, logger: createLogger({ name: 'doors-test', level: 'silent' }) });
  await registerWaitingPipelines(stack);
  mcp = new Client({ name: 'doors-test', version: '1.0.0' });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(bridge.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${TEST_API_KEY}` } } }));
  client = createSwitchyardClient({ url: stack.api.url, key: TEST_API_KEY });
  // One call waits for approval for the whole file: every refusal below leaves it waiting.
  runId = await startRun(stack, 'inbox-agent', { topic: 'tides' });
  const items = await waitFor(async () => (await stack.json<{ items: { key: string }[] }>(`/v1/inbox?run_id=${runId}`)).body.items, (list) => list.length > 0, 'the call waits');
  callId = items[0]?.key ?? '';
});
after(async () => {
  await mcp?.close();
  await bridge?.close();
  await stack?.close();
  await model?.close();
});

async function overHttp(method: string, path: string, body?: unknown): Promise<ErrorBody> {
  const answer = await stack.json<{ error: ErrorBody }>(path, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  assert.ok(answer.status >= 400 && answer.status < 500, `${method} ${path} answered ${answer.status}`);
  return answer.body.error;
}

async function overMcp(tool: string, args: Record<string, unknown>): Promise<ErrorBody> {
  const result = (await mcp.callTool({ name: tool, arguments: args })) as CallToolResult;
  assert.equal(result.isError, true, `${tool} should have failed: ${JSON.stringify(result.content)}`);
  const [text] = result.content;
  const structured = result.structuredContent as { error: ErrorBody } | undefined;
  assert.ok(structured, `${tool} answered its failure as structured content`);
  assert.deepEqual(text?.type === 'text' ? JSON.parse(text.text) : undefined, structured, 'the text block holds the same JSON');
  return structured.error;
}

async function throughClient(call: () => Promise<unknown>): Promise<ErrorBody> {
  try {
    await call();
  } catch (error) {
    assert.ok(error instanceof ApiError, String(error));
    return { code: error.code, message: error.message, details: error.details };
  }
  assert.fail('the client call should have been refused');
}

async function fromCli(...args: string[]): Promise<ErrorBody> {
  const result = await runCli([...args, '--json'], { env: cliEnv({ SWITCHYARD_URL: stack.api.url, SWITCHYARD_KEY: TEST_API_KEY }) });
  assert.equal(result.code, 3, `switchyard ${args.join(' ')}: ${result.stderr}`);
  const body = JSON.parse(result.stdout) as { error: ErrorBody };
  assert.match(result.stderr, new RegExp(`^switchyard: .*: 4\\d\\d ${body.error.code}: `), 'stderr keeps its one line');
  return body.error;
}

/** Every door gave the same code and the same details (messages may say where they came from, nothing more). */
function sameEverywhere(answers: Answers, expected: { code: string; problem?: RegExp; path?: string }): void {
  const printed = Object.entries(answers).map(([door, body]) => `${door}: ${JSON.stringify(body)}`).join('\n');
  console.log(`# ${expected.code}\n${printed.replace(/^/gm, '#   ')}`);
  for (const [door, body] of Object.entries(answers)) {
    assert.deepEqual(Object.keys(body).sort(), ['code', 'details', 'message'], `${door}: the error's keys`);
    assert.equal(body.code, expected.code, `${door}'s code`);
    assert.equal(typeof body.message, 'string');
    assert.ok(body.details && typeof body.details === 'object' && !Array.isArray(body.details), `${door}: details is an object`);
  }
  const [first, ...rest] = Object.values(answers);
  for (const [door, body] of Object.entries(answers).slice(1)) assert.deepEqual(body.details, first?.details, `${door}'s details are the HTTP door's`);
  assert.equal(rest.length, 3);
  if (expected.path) {
    const problems = first?.details.problems as { path: string; message: string }[] | undefined;
    assert.ok(Array.isArray(problems), `details.problems in ${printed}`);
    const problem = problems.find((p) => p.path === expected.path);
    assert.ok(problem, `a problem at ${expected.path} in ${JSON.stringify(problems)}`);
    if (expected.problem) assert.match(problem.message, expected.problem);
  }
}

test('arguments an approval gives that break the tool schema are invalid_arguments naming the field, at every door', async () => {
  const edited = { topic: 'lighthouses', depth: 'deep' };
  const answers: Answers = {
    http: await overHttp('POST', `/v1/runs/${runId}/approvals/${callId}`, { approve: true, arguments: edited }),
    mcp: await overMcp('approve_call', { run_id: runId, call_id: callId, approve: true, arguments: edited }),
    client: await throughClient(() => client.answerApproval(runId, callId, { approve: true, arguments: edited })),
    cli: await fromCli('approve', runId, callId, '--arguments', JSON.stringify(edited)),
  };
  sameEverywhere(answers, { code: 'invalid_arguments', path: 'arguments.depth' });
});

test("a run's input that breaks its pipeline's input schema is refused naming the field, at every door", async () => {
  const answers: Answers = {
    http: await overHttp('POST', '/v1/pipelines/inbox-agent/runs', { topic: 5 }),
    mcp: await overMcp('pipeline_inbox-agent', { topic: 5 }),
    client: await throughClient(() => client.startRun('inbox-agent', { topic: 5 })),
    cli: await fromCli('run', 'inbox-agent', '--set', 'topic=5'),
  };
  sameEverywhere(answers, { code: 'invalid_input', path: 'topic', problem: /must be string/ });
});

test('an additional property is refused naming it, at every door (a schedule with a field it does not have)', async () => {
  const body = { pipeline: 'inbox-gate', every: '1h', colour: 'red' };
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'doors-')), 'painted.yaml');
  writeFileSync(file, 'name: painted\npipeline: inbox-gate\nevery: 1h\ncolour: red\n');
  const answers: Answers = {
    http: await overHttp('PUT', '/v1/schedules/painted', body),
    mcp: await overMcp('put_schedule', { name: 'painted', schedule: body }),
    client: await throughClient(() => client.putSchedule('painted', body as never)),
    cli: await fromCli('schedules', 'apply', '-f', file),
  };
  sameEverywhere(answers, { code: 'invalid_schedule', path: '(schedule)', problem: /Unrecognized key: "colour"/ });
});

test('an unknown pipeline is pipeline_not_found, at every door', async () => {
  const answers: Answers = {
    http: await overHttp('GET', '/v1/pipelines/no-such-pipeline'),
    mcp: await overMcp('get_pipeline', { name: 'no-such-pipeline' }),
    client: await throughClient(() => client.getPipeline('no-such-pipeline')),
    cli: await fromCli('pipelines', 'show', 'no-such-pipeline'),
  };
  sameEverywhere(answers, { code: 'pipeline_not_found' });
});

test('a note past 2,000 characters is refused naming note, at every door', async () => {
  const note = 'n'.repeat(2001);
  const answers: Answers = {
    http: await overHttp('POST', `/v1/runs/${runId}/approvals/${callId}`, { approve: false, note }),
    mcp: await overMcp('approve_call', { run_id: runId, call_id: callId, approve: false, note }),
    client: await throughClient(() => client.answerApproval(runId, callId, { approve: false, note })),
    cli: await fromCli('approve', runId, callId, '--reject', '--note', note),
  };
  sameEverywhere(answers, { code: 'invalid_approval', path: 'note', problem: /2000/ });
});

test('an additional property in the body is refused naming it over HTTP, MCP and the client (the CLI sends none)', async () => {
  const answers = {
    http: await overHttp('POST', `/v1/runs/${runId}/approvals/${callId}`, { approve: true, colour: 'red' }),
    mcp: await overMcp('approve_call', { run_id: runId, call_id: callId, approve: true, colour: 'red' }),
    client: await throughClient(() => client.answerApproval(runId, callId, { approve: true, colour: 'red' } as never)),
  };
  console.log(Object.entries(answers).map(([door, body]) => `# ${door}: ${JSON.stringify(body)}`).join('\n'));
  for (const body of Object.values(answers)) assert.equal(body.code, answers.http.code);
  for (const [door, body] of Object.entries(answers)) {
    const problems = body.details.problems as { path: string; message: string }[] | undefined;
    assert.ok(problems?.some((p) => /colour/.test(`${p.path} ${p.message}`)), `${door} names colour: ${JSON.stringify(body)}`);
  }
  assert.deepEqual(answers.client.details, answers.http.details);
  assert.equal((await stack.json<{ items: unknown[] }>(`/v1/inbox?run_id=${runId}`)).body.items.length, 1, 'no refusal answered the call');
});
