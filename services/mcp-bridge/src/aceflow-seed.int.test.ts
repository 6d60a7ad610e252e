/**
 * Seed 000 as written, through the SDK's own Client over both transports: its usage example, in
 * its order, from a fresh session that names no project; and its size limits (10 MB of analysis,
 * 5 MB of stage output), just under accepted and just over answered INVALID_DATA, with the
 * connection alive afterwards. A message over what the bridge reads at all is refused with an
 * error naming its request, over stdio too, and the next call is answered.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createLogger } from '@switchyard/logger';
import { REPO_ROOT, testRedis, uniquePrefix } from '@switchyard/redis';
import { startBridgeHttp, type RunningBridge } from './http/serve.js';
import { MAX_MCP_MESSAGE_BYTES } from './message-limits.js';

const MIB = 1024 * 1024;
const API_KEY = 'seed-000-key';

type Answer = Record<string, unknown> & { success: boolean };

async function aceflow(client: Client, args: Record<string, unknown>): Promise<{ answer: Answer; isError: boolean }> {
  const result = (await client.callTool({ name: 'aceflow_stage', arguments: args }, undefined, { timeout: 120_000 })) as CallToolResult;
  return { answer: result.structuredContent as Answer, isError: result.isError === true };
}

/** The seed's "完整的阶段执行流程示例", call for call. */
async function runSeedExample(client: Client): Promise<void> {
  const response1 = await aceflow(client, {
    action: 'set_analysis',
    data: {
      project_info: { name: 'TaskManager', tech_stack: ['Python', 'FastAPI', 'Vue3'], file_count: 42 },
      test_metrics: { total_tests: 25, test_coverage_percent: 87.5 },
    },
  });
  assert.equal(response1.answer.success, true, JSON.stringify(response1.answer));
  assert.deepEqual((response1.answer.data_stored as { categories: string[] }).categories.sort(), ['project_info', 'test_metrics']);

  const response2 = await aceflow(client, { action: 'prepare_data', stage: 's5_test_report' });
  assert.equal(response2.answer.success, true, JSON.stringify(response2.answer).slice(0, 500));
  assert.equal(response2.answer.stage_id, 's5_test_report');
  const pack = response2.answer.data_package as { analysis_data: { project_info: { name: string } }; template: { source_file: string }; project_context: { name: string } };
  assert.equal(pack.analysis_data.project_info.name, 'TaskManager');
  assert.match(pack.template.source_file, /s5_test_report\.md$/);
  assert.equal(pack.project_context.name, 'default', 'a session that names no project works on "default"');

  const response3 = await aceflow(client, { action: 'save_output', stage: 's5_test_report', data: { content: '完整的测试报告内容...', metadata: { word_count: 1500 } } });
  assert.equal(response3.answer.success, true, JSON.stringify(response3.answer));
  assert.equal(response3.answer.stage_id, 's5_test_report');
  assert.match(String(response3.answer.saved_to), /default[/\\]aceflow_result[/\\]s5_test_report\.md$/);

  const response4 = await aceflow(client, { action: 'next' });
  assert.equal(response4.answer.success, true, JSON.stringify(response4.answer));
  assert.deepEqual(response4.answer.transition, { from_stage: 's5_test_report', to_stage: 's6_codereview', progress_update: 13 });
}

const analysisOf = (bytes: number) => ({ project_info: { name: 'Big', directory_structure: { listing: 'x'.repeat(bytes) } } });

/** Just under each limit is taken, just over is INVALID_DATA in the seed's shape; the session lives on. */
async function checkLimits(client: Client): Promise<void> {
  const project = { name: 'limits' };
  const under = await aceflow(client, { action: 'set_analysis', project, data: analysisOf(Math.floor(9.9 * MIB)) });
  assert.equal(under.answer.success, true, JSON.stringify(under.answer).slice(0, 300));
  const over = await aceflow(client, { action: 'set_analysis', data: analysisOf(10 * MIB + 1024) });
  assert.equal(over.isError, true);
  assert.equal(over.answer.error_code, 'INVALID_DATA');
  assert.deepEqual(Object.keys(over.answer).sort(), ['error_code', 'error_details', 'error_message', 'success', 'suggested_actions']);

  const output = await aceflow(client, { action: 'save_output', stage: 's1_user_story', data: { content: 'y'.repeat(Math.floor(4.9 * MIB)) } });
  assert.equal(output.answer.success, true, JSON.stringify(output.answer).slice(0, 300));
  const tooLong = await aceflow(client, { action: 'save_output', stage: 's1_user_story', data: { content: 'y'.repeat(5 * MIB + 1024) } });
  assert.equal(tooLong.answer.error_code, 'INVALID_DATA');

  const status = await aceflow(client, { action: 'status' });
  assert.equal(status.answer.success, true, 'the session goes on');
}

/** A message past what the bridge reads at all is refused with an error naming its request; the next call is answered. */
async function checkOversizedMessage(client: Client): Promise<void> {
  await assert.rejects(aceflow(client, { action: 'set_analysis', data: analysisOf(MAX_MCP_MESSAGE_BYTES + MIB) }), (error: Error & { code?: number }) => {
    assert.match(error.message, /larger than/, String((error as { cause?: unknown }).cause));
    return true;
  });
  assert.equal((await aceflow(client, { action: 'status' })).answer.success, true);
}

let workspaces: string;
let redisUrl: string;
before(async () => {
  workspaces = await mkdtemp(path.join(os.tmpdir(), 'aceflow-seed-'));
  redisUrl = (await testRedis()).url;
});
after(() => rm(workspaces, { recursive: true, force: true }));

describe('over Streamable HTTP', () => {
  let bridge: RunningBridge;
  let client: Client;
  before(async () => {
    bridge = await startBridgeHttp({ redisUrl, prefix: uniquePrefix('seed000-http'), apiKeys: [API_KEY], aceflowRoot: path.join(workspaces, 'http'), logger: createLogger({ name: 'seed-000', level: 'silent' }) });
    client = new Client({ name: 'seed-000-http', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(bridge.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${API_KEY}` } } }));
  });
  after(async () => {
    await client.close();
    await bridge.close();
  });

  test('the seed\'s usage example runs as written from a fresh session, on the default project', () => runSeedExample(client));
  test('a 9.9 MB analysis and a 4.9 MB stage output are taken, just over 10 MB and 5 MB are INVALID_DATA', () => checkLimits(client));
  test('a body over the bridge\'s message limit is refused with a JSON-RPC error, and the session goes on', () => checkOversizedMessage(client));
});

describe('over stdio', () => {
  let client: Client;
  before(async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', 'services/mcp-bridge/src/stdio.ts'],
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? '', REDIS_URL: redisUrl, QUEUE_PREFIX: uniquePrefix('seed000-stdio'), LOG_LEVEL: 'error', ACEFLOW_WORKSPACE_ROOT: path.join(workspaces, 'stdio') },
      stderr: 'ignore',
    });
    client = new Client({ name: 'seed-000-stdio', version: '1.0.0' });
    await client.connect(transport);
  });
  after(() => client.close());

  test('the seed\'s usage example runs as written from a fresh session, on the default project', () => runSeedExample(client));
  test('a 9.9 MB analysis and a 4.9 MB stage output are taken, just over 10 MB and 5 MB are INVALID_DATA', () => checkLimits(client));
  test('a message over the bridge\'s limit is refused with an error naming its request, and the connection goes on', () => checkOversizedMessage(client));
});
