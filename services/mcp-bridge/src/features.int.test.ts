import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Redis } from 'ioredis';
import { createLogger } from '@switchyard/logger';
import { startTestStack, TEST_API_KEY, type TestStack } from '@switchyard/orchestrator/testing';
import { createRedisClient, REPO_ROOT } from '@switchyard/redis';
import { SupervisorStore } from '@switchyard/supervisor';
import { startBridgeHttp, type RunningBridge } from './http/serve.js';
import { ok, waitFor } from './testing/journey.js';
import { checkCapabilitiesAndTemplates, checkCompletions, checkLogging, checkPrompts, checkResourcePaging, checkResourceReads, checkSubscriptions, finishedStory, recordNotifications, type Recorded } from './testing/features.js';

// Small pages, so that a handful of runs makes several.
const PAGE_SIZE = 3;

let stack: TestStack;
let redis: Redis;
let bridge: RunningBridge;
let supervisorProject: { id: string; name: string };

before(async () => {
  // A little latency per tool call keeps runs going long enough to be followed.
  stack = await startTestStack({ label: 'mcp-features', faults: { latencyMs: 40 } });
  redis = createRedisClient(stack.redisUrl);
  bridge = await startBridgeHttp({
    redisUrl: stack.redisUrl,
    prefix: stack.prefix,
    apiKeys: [TEST_API_KEY],
    aceflowRoot: stack.aceflowRoot,
    supervisorRoot: stack.aceflowRoot,
    resourcePageSize: PAGE_SIZE,
    logger: createLogger({ name: 'mcp-features-test', level: 'silent' }),
  });
  const { project } = await new SupervisorStore({ redis, prefix: stack.prefix }).createProject({ owner_id: 'features-test', project_name: 'Harbour Ops' }, new Date().toISOString());
  supervisorProject = { id: project.project_id, name: project.project_name };
});
after(async () => {
  await bridge.close();
  await stack.close();
  await redis.quit();
});

async function httpClient(): Promise<Client> {
  const client = new Client({ name: 'features-http', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(bridge.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${TEST_API_KEY}` } } }));
  return client;
}

async function stdioClient(): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', 'services/mcp-bridge/src/stdio.ts'],
    cwd: REPO_ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      REDIS_URL: stack.redisUrl,
      QUEUE_PREFIX: stack.prefix,
      LOG_LEVEL: 'warn',
      RESOURCES_PAGE_SIZE: String(PAGE_SIZE),
      TOOL_FEDERATION: 'false',
      ACEFLOW_WORKSPACE_ROOT: stack.aceflowRoot,
      SUPERVISOR_WORKSPACE_ROOT: stack.aceflowRoot,
    },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'features-stdio', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

const indexedRuns = () => redis.zrevrange(`${stack.prefix}:runs`, 0, -1);

for (const [transport, connect] of [
  ['Streamable HTTP', httpClient],
  ['stdio', stdioClient],
] as const) {
  describe(`over ${transport}`, () => {
    let client: Client;
    let recorded: Recorded;
    before(async () => {
      client = await connect();
      recorded = recordNotifications(client);
    });
    after(() => client.close());

    test(`the bridge declares resources, prompts, completions and logging, and lists a resource template per kind over ${transport}`, async () => {
      await checkCapabilitiesAndTemplates(client);
    });

    test(`a run, its story, a batch, a pipeline and a pipeline version are read as resources over ${transport}, and unknown ones are not found`, async () => {
      await checkResourceReads(client);
    });

    test(`resources/list pages through the pipelines and every run, newest first, with a cursor over ${transport}`, async () => {
      await checkResourcePaging(client, indexedRuns, PAGE_SIZE);
    });

    test(`a subscribed run sends resources/updated as it progresses and nothing once unsubscribed over ${transport}`, async () => {
      await checkSubscriptions(client, recorded);
    });

    test(`each prompt is listed and got with its arguments over ${transport}`, async () => {
      await checkPrompts(client, supervisorProject);
    });

    test(`run ids, batch ids, pipelines, versions, stage ids, projects and prompt arguments are completed over ${transport}`, async () => {
      const runId = await finishedStory(client, 'a lantern on a quay');
      const batch = await ok(client, 'start_story_batch', { items: [{ topic: 'a buoy' }] });
      const aceflowProject = `harbour-docs-${transport === 'stdio' ? 'stdio' : 'http'}`;
      await ok(client, 'aceflow_stage', { action: 'status', project: { name: aceflowProject, mode: 'minimal' } });
      await checkCompletions(client, { runId, batchId: String(batch.batch_id), aceflowProject, supervisorProject: supervisorProject.name });
    });

    test(`logging/setLevel sends the session's run events at or above the level and none below over ${transport}`, async () => {
      await checkLogging(client, recorded);
    });
  });
}

test('bridge warnings reach each session as log messages unless its level is above them', async () => {
  const client = await httpClient();
  try {
    const { messages } = recordNotifications(client);
    await client.setLoggingLevel('error');
    bridge.deps.features.notices.warn('a warning nobody at error hears');
    bridge.deps.features.notices.error('an error every session at error hears', { where: 'test' });
    // Both go on the session's one stream in order: once the error is in, the warning would be too.
    await waitFor('the error', () => messages.some((m) => m.level === 'error'));
    assert.deepEqual(
      messages.map((m) => [m.level, m.logger, (m.data as { message: string }).message]),
      [['error', 'bridge', 'an error every session at error hears']],
    );
  } finally {
    await client.close();
  }
});

test('a session taken up by another bridge keeps its logging level and its resources', async () => {
  const client = await httpClient();
  const replica = await startBridgeHttp({ redisUrl: stack.redisUrl, prefix: stack.prefix, apiKeys: [TEST_API_KEY], logger: createLogger({ name: 'mcp-features-replica', level: 'silent' }) });
  try {
    await client.setLoggingLevel('critical');
    const sessionId = (client.transport as StreamableHTTPClientTransport).sessionId;
    assert.ok(sessionId);
    const elsewhere = new Client({ name: 'features-replica', version: '1.0.0' });
    await elsewhere.connect(new StreamableHTTPClientTransport(new URL(replica.mcpUrl), { sessionId, requestInit: { headers: { authorization: `Bearer ${TEST_API_KEY}` } } }));
    try {
      // A client taking a session up skips initialize, and with it the opening of its GET stream, where log messages go; this opens it.
      await elsewhere.notification({ method: 'notifications/initialized' });
      const { messages } = recordNotifications(elsewhere);
      const runId = await finishedStory(elsewhere, 'a harbour master who never sleeps');
      assert.ok((await elsewhere.readResource({ uri: `switchyard://runs/${runId}` })).contents.length === 1);
      // At critical nothing of a completed run is sent, nor an error: the level came along from Redis.
      replica.deps.features.notices.error('below critical');
      await elsewhere.setLoggingLevel('error');
      replica.deps.features.notices.error('at error');
      await waitFor('the error sent once the level is error', () => messages.length > 0);
      assert.deepEqual(messages.map((m) => (m.data as { message: string }).message), ['at error']);
    } finally {
      await elsewhere.close();
    }
  } finally {
    await client.close().catch(() => undefined);
    await replica.close();
  }
});
