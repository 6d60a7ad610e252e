/**
 * `npm run stack` as a user runs it, with the variables the docs give: a tool service of the
 * user's own in TOOL_SERVICES, and a Redis Cluster named either way the README names it. The
 * launcher itself is started (not a test stack), so what it hands its children is what is tested.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { z } from 'zod';
import { createLogger } from '@switchyard/logger';
import { createRedisClient, findRedisServer, REPO_ROOT, startLocalCluster, type LocalCluster } from '@switchyard/redis';
import { createOfflineAuthor, createToolServiceApp, defaultFaults, type ToolDefinition } from '@switchyard/tool-services';
import { launchStack, type LaunchedStack } from './testing/launch-stack.js';

/** Runs `npm run stack` to its end, for a launch that must stop; its exit code and output. */
async function launchFails(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawn('npm', ['run', 'stack'], { cwd: REPO_ROOT, env: { ...process.env, WORKERS: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, output };
}

async function api<T>(stack: LaunchedStack, path: string, init: RequestInit = {}): Promise<{ status: number; body: T }> {
  const res = await fetch(`${stack.apiUrl}${path}`, { ...init, headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json' } });
  return { status: res.status, body: (await res.json()) as T };
}

async function runToTheEnd(stack: LaunchedStack, start: Promise<{ status: number; body: { run_id: string } }>): Promise<{ status: string; result: unknown; error: unknown }> {
  const started = await start;
  assert.equal(started.status, 202, JSON.stringify(started.body));
  const deadline = Date.now() + 60_000;
  for (;;) {
    const { body } = await api<{ status: string; result: unknown; error: unknown }>(stack, `/v1/runs/${started.body.run_id}`);
    if (['completed', 'failed', 'cancelled'].includes(body.status) || Date.now() > deadline) return body;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const tally = { calls: 0 };
const countWords: ToolDefinition = {
  name: 'count_words',
  description: 'Counts the words of a text.',
  input: z.strictObject({ text: z.string().min(1) }),
  streamsContent: false,
  run: async (_author, input) => {
    tally.calls += 1;
    return { words: (input as { text: string }).text.split(/\s+/).filter(Boolean).length };
  },
};
let labServer: Server;
let labUrl: string;

before(async () => {
  // No key of its own: the stack's calls carry the launcher's tool key, which any open service takes.
  const app = createToolServiceApp({ name: 'lab', tools: [countWords], author: createOfflineAuthor(), apiKeys: [], faults: defaultFaults(), logger: createLogger({ name: 'lab', level: 'silent' }) });
  labServer = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => labServer.once('listening', resolve));
  labUrl = `http://127.0.0.1:${(labServer.address() as AddressInfo).port}`;
});
after(() => new Promise((resolve) => labServer.close(resolve)));

test("npm run stack hands TOOL_SERVICES to its services: a pipeline over the user's own service registers and runs", async () => {
  const stack = await launchStack({ TOOL_SERVICES: JSON.stringify({ lab: labUrl }), QUEUE_PREFIX: `stack-env-${Date.now().toString(36)}`, REDIS_URL: process.env.REDIS_URL ?? '' });
  try {
    const put = await api<unknown>(stack, '/v1/pipelines/lab-count', { method: 'PUT', body: JSON.stringify({ name: 'lab-count', steps: { count: { tool: 'count_words', args: { text: 'input.text' } } } }) });
    assert.equal(put.status, 201, JSON.stringify(put.body));
    const run = await runToTheEnd(stack, api(stack, '/v1/pipelines/lab-count/runs', { method: 'POST', body: JSON.stringify({ text: 'a tide clock ticks' }) }));
    assert.equal(run.status, 'completed', JSON.stringify(run.error));
    assert.deepEqual(run.result, { count: { words: 4 } });
    assert.ok(tally.calls >= 1);
  } finally {
    await stack.stop();
  }
});

test('REDIS_URL and REDIS_CLUSTER_NODES both set stop the launch with a line naming them', async () => {
  const { code, output } = await launchFails({ REDIS_URL: 'redis://127.0.0.1:1', REDIS_CLUSTER_NODES: '127.0.0.1:2,127.0.0.1:3' });
  assert.notEqual(code, 0);
  assert.match(output, /REDIS_URL and REDIS_CLUSTER_NODES are both set/);
});

test('each README form of a Redis Cluster is used by npm run stack: a story runs and its keys are on the cluster', async (t) => {
  const binary = findRedisServer(process.env.PATH ?? '');
  assert.ok(binary, 'redis-server is installed');
  const cluster: LocalCluster = await startLocalCluster({ binary });
  t.after(() => cluster.stop());
  const forms = { REDIS_CLUSTER_NODES: { REDIS_CLUSTER_NODES: cluster.nodes.join(','), REDIS_URL: '' }, 'REDIS_URL=redis-cluster://': { REDIS_URL: cluster.url } };
  for (const [form, env] of Object.entries(forms)) {
    const prefix = `stack-cluster-${Date.now().toString(36)}`;
    const stack = await launchStack({ ...env, QUEUE_PREFIX: prefix });
    try {
      assert.match(stack.output(), /redis\s+redis-cluster:\/\/\S+\s+\(given\)/, `${form}: the launcher names the cluster`);
      const run = await runToTheEnd(stack, api(stack, '/v1/stories', { method: 'POST', body: JSON.stringify({ topic: 'a tide clock' }) }));
      assert.equal(run.status, 'completed', `${form}: ${JSON.stringify(run.error)}`);
    } finally {
      await stack.stop();
    }
    const keysPerNode = await Promise.all(
      cluster.nodes.map(async (node) => {
        const client = createRedisClient(`redis://${node}`);
        try {
          return (await client.keys(`*${prefix}*`)).length;
        } finally {
          client.disconnect();
        }
      }),
    );
    process.stdout.write(`# ${form}: keys per master ${JSON.stringify(keysPerNode)}\n`);
    // Which masters hold them depends on the run id's slot; that they are on the cluster is the point.
    assert.ok(keysPerNode.reduce((a, b) => a + b, 0) > 0, `${form}: the run's keys are on the cluster: ${JSON.stringify(keysPerNode)}`);
  }
});

test('npm run stack with API_KEYS set prints no key, and the key it would not print opens the API', async () => {
  const key = `operator-${randomBytes(16).toString('hex')}`;
  const stack = await launchStack({ API_KEYS: `${key}:read+run`, QUEUE_PREFIX: `stack-keys-${Date.now().toString(36)}`, REDIS_URL: process.env.REDIS_URL ?? '' });
  try {
    assert.ok(!stack.output().includes(key), 'the operator\'s key is nowhere in the output');
    assert.match(stack.output(), /API key: one of yours in API_KEYS \(not printed\)/);
    assert.equal((await api<unknown>(stack, '/v1/runs?limit=1')).status, 200);
  } finally {
    await stack.stop();
  }
});
