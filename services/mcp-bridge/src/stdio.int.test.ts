import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Redis } from 'ioredis';
import { startTestStack, type TestStack } from '@switchyard/orchestrator/testing';
import { runKeys } from '@switchyard/pipeline';
import { createRedisClient, REPO_ROOT } from '@switchyard/redis';
import { agentJourney, checkBadCalls, checkEveryToolRefusesBadArguments, checkFederation, checkStagePipeline, checkTasks, checkToolList, ok, snapshotKeys, waitFor } from './testing/journey.js';

let stack: TestStack;
let redis: Redis;
let client: Client;
let stderr = '';

before(async () => {
  stack = await startTestStack({ label: 'mcp-stdio', faults: { latencyMs: 60 } });
  redis = createRedisClient(stack.redisUrl);
  // The bridge as a local agent starts it: a child process speaking MCP on stdin/stdout.
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', 'services/mcp-bridge/src/stdio.ts'],
    cwd: REPO_ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      REDIS_URL: stack.redisUrl,
      QUEUE_PREFIX: stack.prefix,
      LOG_LEVEL: 'warn',
      SEARCH_SERVICE_URL: stack.toolConfig.services.search.url,
      OUTLINE_SERVICE_URL: stack.toolConfig.services.outline.url,
      WRITING_SERVICE_URL: stack.toolConfig.services.writing.url,
      EDITING_SERVICE_URL: stack.toolConfig.services.editing.url,
      TOOL_SERVICE_API_KEY: stack.toolConfig.apiKey ?? '',
    },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  client = new Client({ name: 'bridge-stdio-test', version: '1.0.0' });
  await client.connect(transport);
});
after(async () => {
  await client.close();
  await stack.close();
  await redis.quit();
});

test('the stdio bridge introduces itself and lists every job tool with schemas and annotations', async () => {
  assert.equal(client.getServerVersion()?.name, 'switchyard');
  assert.ok(client.getServerCapabilities()?.tools);
  await checkToolList(client);
});

test('an agent starts a batch, follows a run, reads the stories, lists runs and cancels a run over stdio', async () => {
  await agentJourney(client);
  assert.equal(stderr, '', 'nothing was logged at warn or above');
});

test('bad arguments to every tool over stdio are refused as tool results in the tool\'s own error shape, and write nothing', async () => {
  await ok(client, 'list_runs', {});
  // The runs of the journey before end (a busy machine may still be finishing one) and are
  // compacted some seconds after they end: not while we compare.
  await waitFor('the runs started before to end', async () => (await redis.zcard(runKeys(stack.prefix).activeRuns)) === 0, 60_000);
  await waitFor('the runs ended before to be compacted', async () => (await redis.zcard(runKeys(stack.prefix).endedRuns)) === 0, 40_000);
  // A cancelled run's refused job leaves its queue's failed set just after the run is compacted.
  await waitFor('the failed jobs of the runs before to be removed', async () => [...(await snapshotKeys(redis, stack.prefix, { except: /stalled-check$/ })).keys()].every((key) => !key.endsWith(':failed')), 40_000);
  // Idle workers beside the bridge refresh BullMQ's stalled-check marker; nothing else may move.
  const before = await snapshotKeys(redis, stack.prefix, { except: /stalled-check$/ });
  await checkBadCalls(client);
  assert.ok((await checkEveryToolRefusesBadArguments(client)) >= 20);
  assert.deepEqual(await snapshotKeys(redis, stack.prefix, { except: /stalled-check$/ }), before);
});

test('the tool services\' tools are federated over stdio with their schemas as given', async () => {
  await checkFederation(client, Object.values(stack.toolConfig.services).map((service) => ({ url: service.url, apiKey: stack.toolConfig.apiKey })));
});

test('long calls run as MCP tasks over stdio when the client asks, and as plain calls when it does not', async () => {
  await checkTasks(client);
});

test('an AceFlow stage pipeline is started, followed and read over stdio', async () => {
  await checkStagePipeline(client, 'bridge-stdio-shop');
});
