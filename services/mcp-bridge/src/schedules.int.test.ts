/**
 * The schedule tools over MCP: put, list (with the next run), pause, resume and delete, refusals
 * as `isError` results naming the field, and a read key that lists but may not change them.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createLogger } from '@switchyard/logger';
import { nextCronTime } from '@switchyard/pipeline';
import { startTestStack, TEST_API_KEY, type TestStack } from '@switchyard/orchestrator/testing';
import { startBridgeHttp, type RunningBridge } from './http/serve.js';

const READ_KEY = 'read-key-0123456789';
let stack: TestStack;
let bridge: RunningBridge;

before(async () => {
  stack = await startTestStack({ label: 'mcp-schedules', inProcessWorkers: false });
  bridge = await startBridgeHttp({ redisUrl: stack.redisUrl, prefix: stack.prefix, apiKeys: [TEST_API_KEY, { key: READ_KEY, scopes: ['read'] }], toolServices: stack.toolConfig, logger: createLogger({ name: 'mcp-schedules-test', level: 'silent' }) });
  const put = await stack.json('/v1/pipelines/mcp-sched', { method: 'PUT', body: JSON.stringify({ name: 'mcp-sched', input: { type: 'object', required: ['topic'], properties: { topic: { type: 'string' } } }, steps: { find: { tool: 'search_relevant_information', args: { topic: 'input.topic' } } } }) });
  assert.equal(put.status, 201);
});
after(async () => {
  await bridge.close();
  await stack.close();
});

async function connect(key = TEST_API_KEY): Promise<Client> {
  const client = new Client({ name: 'schedules-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${bridge.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  return client;
}

interface Result { isError?: boolean; structuredContent: Record<string, unknown> & { error?: { code: string; details: { problems?: { path: string }[] } } } }
const call = async (client: Client, name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as unknown as Result;

test('put_schedule makes a schedule list_schedules shows with its next run; pause, resume and delete change it; get_schedule of a deleted one is an isError result', async (t) => {
  const client = await connect();
  t.after(() => client.close());
  const made = await call(client, 'put_schedule', { name: 'mcp-hourly', schedule: { pipeline: 'mcp-sched', cron: '15 * * * *', timezone: 'Asia/Tokyo', input: { topic: 'tides' } } });
  assert.equal(made.isError, undefined, JSON.stringify(made.structuredContent));
  const listed = await call(client, 'list_schedules', {});
  const hourly = (listed.structuredContent.schedules as { name: string; next_run_at: string | null }[]).find((s) => s.name === 'mcp-hourly');
  assert.equal(hourly?.next_run_at, nextCronTime('15 * * * *', 'Asia/Tokyo').toISOString());
  assert.equal((await call(client, 'pause_schedule', { name: 'mcp-hourly' })).structuredContent.paused, true);
  assert.equal((await call(client, 'get_schedule', { name: 'mcp-hourly' })).structuredContent.next_run_at, null);
  assert.equal((await call(client, 'resume_schedule', { name: 'mcp-hourly' })).structuredContent.paused, false);
  assert.equal((await call(client, 'delete_schedule', { name: 'mcp-hourly' })).structuredContent.deleted, true);
  const gone = await call(client, 'get_schedule', { name: 'mcp-hourly' });
  assert.equal(gone.isError, true);
  assert.equal(gone.structuredContent.error?.code, 'schedule_not_found');
});

test('put_schedule refuses a bad cron, an unknown pipeline and a bad input as isError results naming the field, and stores nothing', async (t) => {
  const client = await connect();
  t.after(() => client.close());
  const cases: [Record<string, unknown>, string][] = [
    [{ pipeline: 'mcp-sched', cron: '61 * * * *', input: { topic: 'x' } }, 'cron'],
    [{ pipeline: 'mcp-nothing', every: '1m', input: { topic: 'x' } }, 'pipeline'],
    [{ pipeline: 'mcp-sched', every: '1m', input: { topic: 7 } }, 'input.topic'],
  ];
  for (const [schedule, field] of cases) {
    const refused = await call(client, 'put_schedule', { name: 'mcp-refused', schedule });
    assert.equal(refused.isError, true, JSON.stringify(schedule));
    assert.ok(refused.structuredContent.error?.details.problems?.some((p) => p.path === field), `${field}: ${JSON.stringify(refused.structuredContent)}`);
  }
  assert.equal((await call(client, 'get_schedule', { name: 'mcp-refused' })).isError, true);
});

test('a read key lists schedules but sees no tool that changes them, and calling one is refused', async (t) => {
  const client = await connect(READ_KEY);
  t.after(() => client.close());
  const names = (await client.listTools()).tools.map((tool) => tool.name).filter((name) => name.includes('schedule'));
  assert.deepEqual(names.sort(), ['get_schedule', 'list_schedules']);
  const refused = (await client.callTool({ name: 'put_schedule', arguments: { name: 'mcp-read', schedule: { pipeline: 'mcp-sched', every: '1m', input: { topic: 'x' } } } }).catch((error: unknown) => ({ isError: true, error }))) as { isError?: boolean };
  assert.equal(refused.isError, true);
  assert.equal((await stack.json('/v1/schedules/mcp-read')).status, 404, 'nothing was stored');
});
