/**
 * The stdio bridge's first tools/list: a local agent lists once, right after initialize, so the
 * pipelines' tools must be there already, on a keyspace no other process has prepared.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { RunStore } from '@switchyard/pipeline';
import { createRedisClient, REPO_ROOT, testRedis, uniquePrefix } from '@switchyard/redis';

/** A stdio bridge process on a keyspace of its own, as a local agent starts it. */
async function stdioBridge(label: string): Promise<{ redis: { url: string }; prefix: string; transport: StdioClientTransport }> {
  const redis = await testRedis();
  const prefix = uniquePrefix(label);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', 'services/mcp-bridge/src/stdio.ts'],
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', REDIS_URL: redis.url, QUEUE_PREFIX: prefix, LOG_LEVEL: 'warn', TOOL_FEDERATION: 'false' },
    stderr: 'pipe',
  });
  return { redis, prefix, transport };
}

test("the stdio bridge's first tools/list, on a fresh keyspace, has the shipped pipelines' tools", async (t) => {
  const { transport } = await stdioBridge('stdio-tools');
  const client = new Client({ name: 'stdio-first-list', version: '1.0.0' });
  t.after(() => client.close());
  await client.connect(transport);
  const names = (await client.listTools()).tools.map((tool) => tool.name);
  for (const name of ['pipeline_story', 'pipeline_aceflow', 'list_pipelines', 'start_story']) assert.ok(names.includes(name), `${name} in ${names.join(', ')}`);
});

test('runs started over stdio are held by the key `stdio` under the bound of live runs per key, and share queues as `key:stdio`', async (t) => {
  const { redis, prefix, transport } = await stdioBridge('stdio-owner');
  const client = new Client({ name: 'stdio-owner', version: '1.0.0' });
  const connection = createRedisClient(redis.url);
  t.after(async () => {
    await client.close();
    await connection.quit();
  });
  await client.connect(transport);
  const started = (await client.callTool({ name: 'start_story', arguments: { topic: 'a local agent asks' } })) as { structuredContent?: { run_id?: string } };
  const runId = started.structuredContent?.run_id ?? '';
  assert.match(runId, /^run_/, JSON.stringify(started));
  const store = new RunStore({ redis: connection, prefix });
  assert.equal(await store.liveRuns.held('stdio'), 1, 'the run counts against the stdio key');
  assert.equal((await store.getFlow(runId))?.key, 'key:stdio');
  await client.callTool({ name: 'cancel_run', arguments: { run_id: runId } });
  assert.equal(await store.liveRuns.held('stdio'), 0, 'its end released it');
});
