import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { createLogger } from '@switchyard/logger';
import { startTestStack, TEST_API_KEY, type TestStack } from '@switchyard/orchestrator/testing';
import { startBridgeHttp, type RunningBridge } from './http/serve.js';

let stack: TestStack;
let bridge: RunningBridge;

before(async () => {
  stack = await startTestStack({ label: 'mcp-pipelines' });
  bridge = await startBridgeHttp({ redisUrl: stack.redisUrl, prefix: stack.prefix, apiKeys: [TEST_API_KEY], toolServices: stack.toolConfig, logger: createLogger({ name: 'mcp-pipelines-test', level: 'silent' }) });
});
after(async () => {
  await bridge.close();
  await stack.close();
});

async function connect(): Promise<Client> {
  const client = new Client({ name: 'pipelines-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${bridge.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${TEST_API_KEY}` } } }));
  return client;
}

const structured = <T>(result: unknown) => (result as { structuredContent: T }).structuredContent;

/**
 * Resolves once a tools/list_changed notification has been followed by a listing with `name`:
 * another notification (the pipelines announced as the session starts) may come first.
 */
function toldOf(client: Client, name: string, timeoutMs = 10_000): Promise<void> {
  const told = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no tools/list_changed brought ${name} within ${timeoutMs} ms`)), timeoutMs);
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      if (!(await client.listTools()).tools.some((tool) => tool.name === name)) return;
      clearTimeout(timer);
      resolve();
    });
  });
  // Awaited by the test; a test that fails before that must not leave a rejection unhandled.
  told.catch(() => undefined);
  return told;
}

test('a pipeline registered over HTTP becomes an MCP tool at once, connected clients are told, and it runs', async (t) => {
  const client = await connect();
  t.after(() => client.close());
  const told = toldOf(client, 'pipeline_tide-report');
  const before = (await client.listTools()).tools.map((tool) => tool.name);
  assert.ok(!before.includes('pipeline_tide-report'));

  const put = await stack.json('/v1/pipelines/tide-report', {
    method: 'PUT',
    body: JSON.stringify({
      name: 'tide-report',
      description: 'Researches a coast and writes a short report.',
      input: { type: 'object', required: ['coast'], properties: { coast: { type: 'string', description: 'Which coast' } } },
      steps: {
        research: { tool: 'search_relevant_information', args: { topic: "'tides of ' & input.coast" } },
        report: { tool: 'polish_story', needs: ['research'], args: { draft: "$join(steps.research.results.snippet, ' ')" } },
      },
      output: '{ "report": steps.report.polished_content, "sources": $count(steps.research.results) }',
      output_schema: { type: 'object', properties: { report: { type: 'string' }, sources: { type: 'integer' } } },
    }),
  });
  assert.equal(put.status, 201);
  await told;
  const tool = (await client.listTools()).tools.find((candidate) => candidate.name === 'pipeline_tide-report');
  assert.ok(tool, 'the pipeline is a tool');
  assert.deepEqual(tool.inputSchema.required, ['coast']);
  // The run's answer, or the error body of a refused call.
  const answer = (tool.outputSchema as unknown as { anyOf: { properties?: { result?: unknown } }[] }).anyOf[0];
  assert.deepEqual(answer?.properties?.result, { type: 'object', properties: { report: { type: 'string' }, sources: { type: 'integer' } } }, 'the output schema carries the pipeline\'s');

  const progress: number[] = [];
  const result = await client.callTool({ name: 'pipeline_tide-report', arguments: { coast: 'Brittany' } }, undefined, { onprogress: (p) => progress.push(p.progress) });
  const run = structured<{ status: string; timed_out: boolean; pipeline: { version: number }; result: { report: string; sources: number } }>(result);
  assert.equal(run.status, 'completed');
  assert.equal(run.timed_out, false);
  assert.equal(run.pipeline.version, 1);
  assert.ok(run.result.report.length > 20);
  assert.ok(progress.length > 0, 'progress was reported');
  // A single run over MCP: class 3 and the session's key by default, the class `_meta` asks for otherwise.
  const asked = structured<{ run_id: string }>(await client.callTool({ name: 'pipeline_tide-report', arguments: { coast: 'Finistère' }, _meta: { 'switchyard/priority': 2 } }));
  const flows = await Promise.all([(run as unknown as { run_id: string }).run_id, asked.run_id].map(async (id) => (await stack.json<{ flow: { priority: number; key: string } }>(`/v1/runs/${id}`)).body.flow));
  assert.deepEqual(flows.map((f) => f.priority), [3, 2]);
  assert.match(flows[0]?.key ?? '', /^key:[0-9a-f]{16}$/, "the session's API key");

  const refused = await client.callTool({ name: 'pipeline_tide-report', arguments: {} });
  assert.equal(refused.isError, true);
  assert.match(JSON.stringify(refused.structuredContent), /invalid_input.*coast/);

  // An input past the run's bound (1 MiB) is the tool's failure, in its error shape; no run is made.
  const runsBefore = (await stack.json<{ runs: unknown[] }>('/v1/runs?pipeline=tide-report')).body.runs.length;
  const tooLarge = await client.callTool({ name: 'pipeline_tide-report', arguments: { coast: 'x'.repeat(2 * 1024 * 1024) } });
  assert.equal(tooLarge.isError, true);
  const error = structured<{ error: { code: string; details: { variable: string } } }>(tooLarge).error;
  assert.deepEqual([error.code, error.details.variable], ['input_too_large', 'RUN_MAX_INPUT_BYTES']);
  assert.equal((await stack.json<{ runs: unknown[] }>('/v1/runs?pipeline=tide-report')).body.runs.length, runsBefore, 'no run was made');
});

test('list_pipelines and get_pipeline describe what is registered, the shipped pipelines included', async (t) => {
  const client = await connect();
  t.after(() => client.close());
  const listed = structured<{ pipelines: { name: string; tool: string; latest: number }[]; next_offset: number | null }>(await client.callTool({ name: 'list_pipelines', arguments: {} }));
  assert.ok(listed.pipelines.some((p) => p.name === 'story' && p.tool === 'pipeline_story'));
  assert.equal(listed.next_offset, null, 'every pipeline is on the first page');
  const paged = structured<{ pipelines: { name: string }[]; next_offset: number | null }>(await client.callTool({ name: 'list_pipelines', arguments: { limit: 1 } }));
  assert.deepEqual([paged.pipelines.length, paged.next_offset], [1, 1]);
  const story = structured<{ definition: { steps: Record<string, unknown> }; versions: unknown[] }>(await client.callTool({ name: 'get_pipeline', arguments: { name: 'story' } }));
  assert.deepEqual(Object.keys(story.definition.steps), ['search', 'outline', 'write', 'polish']);
  const missing = await client.callTool({ name: 'get_pipeline', arguments: { name: 'nope' } });
  assert.equal(missing.isError, true);
});

const coastNotes = `name: coast-notes
description: Notes on a coast, tidied.
input:
  type: object
  required: [coast]
  properties:
    coast: { type: string, description: Which coast }
steps:
  notes:
    tool: search_relevant_information
    args:
      topic: "'notes on ' & input.coast"
  tidy:
    tool: polish_story
    needs: [notes]
    args:
      draft: "$join(steps.notes.results.snippet, ' ')"
output: '{ "text": steps.tidy.polished_content }'
`;

test('a pipeline registered over MCP is checked as over HTTP: a bad one is refused with every problem and nothing stored, a good one becomes a tool and runs', async (t) => {
  const client = await connect();
  t.after(() => client.close());
  const told = toldOf(client, 'pipeline_coast-notes');

  const bad = await client.callTool({ name: 'register_pipeline', arguments: { definition: coastNotes.replace('needs: [notes]', 'needs: [nowhere]').replace('tool: polish_story', 'tool: polish_stories') } });
  assert.equal(bad.isError, true);
  const refusal = structured<{ error: { code: string; details: { problems: { path: string; message: string }[] } } }>(bad).error;
  assert.equal(refusal.code, 'invalid_pipeline');
  const places = refusal.details.problems.map((p) => p.path);
  assert.ok(places.some((p) => p.startsWith('steps.tidy.needs')) && places.includes('steps.tidy.tool'), JSON.stringify(refusal.details.problems));
  assert.equal((await stack.json('/v1/pipelines/coast-notes')).status, 404, 'nothing was stored');
  const unnamed = await client.callTool({ name: 'register_pipeline', arguments: { definition: 'steps: [' } });
  assert.equal(unnamed.isError, true);
  assert.match(JSON.stringify(unnamed.structuredContent), /invalid_pipeline.*line 1/);

  const registered = structured<{ name: string; version: number; outcome: string; tool: string }>(await client.callTool({ name: 'register_pipeline', arguments: { definition: coastNotes } }));
  assert.deepEqual(registered, { name: 'coast-notes', version: 1, outcome: 'created', tool: 'pipeline_coast-notes' });
  const again = structured<{ outcome: string; version: number }>(await client.callTool({ name: 'register_pipeline', arguments: { definition: coastNotes } }));
  assert.deepEqual([again.outcome, again.version], ['unchanged', 1]);
  await told;
  assert.equal((await stack.json<{ latest: number }>('/v1/pipelines/coast-notes')).body.latest, 1, 'the API sees the same version');

  const run = structured<{ status: string; result: { text: string } }>(await client.callTool({ name: 'pipeline_coast-notes', arguments: { coast: 'a fjord' } }));
  assert.equal(run.status, 'completed');
  assert.ok(run.result.text.length > 20);
});
