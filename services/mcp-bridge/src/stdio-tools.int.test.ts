/**
 * The stdio bridge's first tools/list: a local agent lists once, right after initialize, so the
 * pipelines' tools must be there already, on a keyspace no other process has prepared.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { REPO_ROOT, testRedis, uniquePrefix } from '@switchyard/redis';

test("the stdio bridge's first tools/list, on a fresh keyspace, has the shipped pipelines' tools", async (t) => {
  const redis = await testRedis();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', 'services/mcp-bridge/src/stdio.ts'],
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', REDIS_URL: redis.url, QUEUE_PREFIX: uniquePrefix('stdio-tools'), LOG_LEVEL: 'warn', TOOL_FEDERATION: 'false' },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'stdio-first-list', version: '1.0.0' });
  t.after(() => client.close());
  await client.connect(transport);
  const names = (await client.listTools()).tools.map((tool) => tool.name);
  for (const name of ['pipeline_story', 'pipeline_aceflow', 'list_pipelines', 'start_story']) assert.ok(names.includes(name), `${name} in ${names.join(', ')}`);
});
