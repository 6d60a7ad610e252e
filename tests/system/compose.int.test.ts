/**
 * The compose stack for real: `docker compose up --build -d` from the repository as it is, then
 * stories, an agent run and an MCP run through the published ports, the workers scaled to 4, one
 * worker SIGKILLed and one SIGTERMed mid-batch, the Redis container restarted, every service's
 * /metrics read, and `docker compose down -v`. Each phase's time is printed, and the image's size.
 *
 * It needs a Docker engine (DOCKER_HOST, or the default socket) and the base images (on a machine
 * with no registry, infra/local-images.sh builds them), so it runs only when
 * SWITCHYARD_TEST_COMPOSE=1, as `.ci/run` sets it once infra/docker-engine.sh has an engine.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { freePort } from '@switchyard/redis';
import { ComposeStack, freePortRange, waitFor } from './testing/compose-stack.js';

const enabled = process.env.SWITCHYARD_TEST_COMPOSE === '1';
const skip = enabled ? false : 'needs a Docker engine: .ci/run sets SWITCHYARD_TEST_COMPOSE=1 when infra/docker-engine.sh has one';

interface Stage {
  name: string;
  status: string;
  attempts: number;
}
interface Run {
  run_id: string;
  status: string;
  stages: Stage[];
  error: unknown;
}
interface Batch {
  status: 'running' | 'done';
  counts: Record<string, number>;
  runs: { run_id: string; status: string | null }[];
}

let stack: ComposeStack;

before(async () => {
  if (!enabled) return;
  const toolPort = await freePortRange(5);
  // Stories slow enough to be caught mid-flight: every tool call answers after 4 s.
  stack = new ComposeStack({ apiPort: await freePort(), mcpPort: await freePort(), toolPort, env: { WORKERS: '2', LOG_LEVEL: 'warn', FAULT_LATENCY_MS: '4000' } });
});

after(async () => {
  if (!enabled || !stack) return;
  // Whatever happened, nothing of the project is left running.
  await stack.compose(['down', '-v', '--remove-orphans']).catch((error: unknown) => process.stderr.write(`compose down failed: ${String(error)}\n`));
  process.stdout.write(`  phases: ${stack.phases.map((p) => `${p.name} ${p.seconds} s`).join('; ')}\n`);
});

async function healthOf(id: string): Promise<string> {
  return stack.inspect(id, '{{if .State.Health}}{{.State.Health.Status}}{{else}}none{{end}}');
}

/** Waits until every container of the project that has a healthcheck says healthy, and `workers` workers run. */
async function waitHealthy(workers: number): Promise<void> {
  await waitFor(
    'every container healthy',
    async () => {
      const ids = (await stack.compose(['ps', '-q'])).split('\n').filter(Boolean);
      const states = await Promise.all(ids.map(async (id) => `${await stack.inspect(id, '{{index .Config.Labels "com.docker.compose.service"}}')}:${await healthOf(id)}`));
      return states;
    },
    (states) => states.filter((s) => s.startsWith('workers:healthy')).length === workers && states.every((s) => s.endsWith(':healthy') || s.endsWith(':none')),
    300_000,
    2_000,
  );
}

async function startBatch(count: number, label: string): Promise<{ batch_id: string; run_ids: string[] }> {
  const items = Array.from({ length: count }, (_, i) => ({ topic: `${label} ${i + 1}: a keeper of small harbours` }));
  const { status, body } = await stack.api<{ batch_id: string; run_ids: string[] }>('/v1/batches', { method: 'POST', body: JSON.stringify({ items }) });
  assert.equal(status, 202, JSON.stringify(body));
  return body;
}

async function batchDone(batchId: string, timeoutMs = 240_000): Promise<Batch> {
  return waitFor(`batch ${batchId} done`, async () => (await stack.api<Batch>(`/v1/batches/${batchId}?limit=100`)).body, (b) => b.status === 'done', timeoutMs, 1_000);
}

async function runsOf(runIds: string[]): Promise<Run[]> {
  return Promise.all(runIds.map(async (id) => (await stack.api<Run>(`/v1/runs/${id}`)).body));
}

/** Stage attempts past the first, over the runs: work done again. */
const redone = (runs: Run[]) => runs.flatMap((r) => r.stages).reduce((sum, s) => sum + Math.max(0, s.attempts - 1), 0);

/** The sum of a metric's samples in a Prometheus text. */
function sampleSum(text: string, name: string): number {
  return text.split('\n').filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `)).reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
}

/** A worker container with active stages now, and how many. */
async function busyWorker(): Promise<{ id: string; active: number }> {
  return waitFor(
    'a worker with active stages',
    async () => {
      const seen = await Promise.all(
        (await stack.containers('workers')).map(async (id) => {
          const text = await stack.getInside(id, 9464, '/metrics').catch(() => ''); // a stopped one answers nothing
          return { id, active: sampleSum(text, 'switchyard_stages_active') };
        }),
      );
      return seen.sort((a, b) => b.active - a.active).find((worker) => worker.active > 0);
    },
    (found) => found !== undefined,
    60_000,
    200,
  ) as Promise<{ id: string; active: number }>;
}

test('docker compose up --build runs the stack: stories, an agent and MCP through the published ports, workers scaled and killed, Redis restarted, metrics read, and down -v', { skip, timeout: 40 * 60_000 }, async () => {
  await stack.phase('up --build (image build included)', () => stack.compose(['up', '--build', '-d'], 30 * 60_000));
  await stack.phase('healthy', () => waitHealthy(2));

  const [user, healthcheck, size] = (await stack.docker(['image', 'inspect', '--format', '{{.Config.User}}|{{json .Config.Healthcheck.Test}}|{{.Size}}', 'switchyard:local'])).trim().split('|');
  process.stdout.write(`  image switchyard:local: ${Math.round(Number(size) / 1e6)} MB, user ${user}, healthcheck ${healthcheck}\n`);
  assert.equal(user, 'node', 'the image runs as the unprivileged node user');
  assert.match(healthcheck ?? '', /healthcheck\.mjs/);
  const orchestrator = (await stack.containers('orchestrator'))[0] as string;
  assert.notEqual((await stack.docker(['exec', orchestrator, 'id', '-u'])).trim(), '0');
  assert.equal((await fetch(`${stack.apiUrl}/livez`)).status, 200);
  assert.equal((await fetch(`${stack.apiUrl}/readyz`)).status, 200);

  await stack.phase('stories, an agent and an MCP run', async () => {
    const batch = await startBatch(4, 'first');
    const agent = await stack.api<{ run_id: string }>('/v1/pipelines/research-agent/runs', { method: 'POST', body: JSON.stringify({ topic: 'the tides of a small harbour' }) });
    assert.equal(agent.status, 202, JSON.stringify(agent.body));
    const client = new Client({ name: 'compose-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(stack.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${stack.apiKey}` } } }));
    try {
      const started = (await client.callTool({ name: 'start_story', arguments: { topic: 'a ferry that runs on Sundays' } })).structuredContent as { run_id: string };
      const waited = (await client.callTool({ name: 'wait_for_run', arguments: { run_id: started.run_id, timeout_s: 180 } }, undefined, { timeout: 200_000 })).structuredContent as { status: string };
      assert.equal(waited.status, 'completed', 'the story started over MCP completed');
    } finally {
      await client.close();
    }
    const done = await batchDone(batch.batch_id);
    assert.deepEqual(done.counts.completed, 4, JSON.stringify(done.counts));
    const agentRun = await waitFor('the agent run', async () => (await stack.api<Run>(`/v1/runs/${agent.body.run_id}`)).body, (r) => ['completed', 'failed'].includes(r.status), 180_000, 1_000);
    assert.equal(agentRun.status, 'completed', JSON.stringify(agentRun.error));
  });

  await stack.phase('scale workers to 4', async () => {
    await stack.compose(['up', '-d', '--no-recreate', '--scale', 'workers=4'], 300_000);
    await waitHealthy(4);
  });

  await stack.phase('SIGKILL a worker mid-batch', async () => {
    const batch = await startBatch(12, 'killed');
    const victim = await busyWorker();
    await stack.docker(['kill', '--signal', 'KILL', victim.id]);
    const done = await batchDone(batch.batch_id);
    const runs = await runsOf(batch.run_ids);
    process.stdout.write(`  SIGKILL with ${victim.active} active stages: ${runs.length} runs, ${done.counts.completed ?? 0} completed, ${done.counts.failed ?? 0} failed, ${redone(runs)} stage attempts redone\n`);
    assert.equal(done.counts.completed, 12, `every story completes: ${JSON.stringify(done.counts)}`);
  });

  await stack.phase('SIGTERM a worker mid-batch', async () => {
    const batch = await startBatch(12, 'drained');
    const leaving = await busyWorker();
    const started = performance.now();
    // `docker stop`: SIGTERM, then SIGKILL only after 40 s (the services' grace is 25 s).
    await stack.docker(['stop', '--time', '40', leaving.id], 60_000);
    const seconds = Math.round((performance.now() - started) / 100) / 10;
    const exitCode = await stack.inspect(leaving.id, '{{.State.ExitCode}}');
    const done = await batchDone(batch.batch_id);
    const runs = await runsOf(batch.run_ids);
    process.stdout.write(`  SIGTERM with ${leaving.active} active stages: exited ${exitCode} after ${seconds} s; ${done.counts.completed ?? 0} of 12 completed, ${redone(runs)} stage attempts redone\n`);
    assert.equal(exitCode, '0', 'the worker exits cleanly, not killed at the end of its grace');
    assert.equal(done.counts.completed, 12, JSON.stringify(done.counts));
    assert.equal(redone(runs), 0, 'the stopped worker finished its stages: none was run again');
  });

  await stack.phase('restart the Redis container mid-batch', async () => {
    const earlier = (await stack.api<{ runs: { run_id: string; status: string }[] }>('/v1/runs?limit=100')).body.runs;
    const batch = await startBatch(6, 'restarted');
    await busyWorker();
    await stack.compose(['restart', 'redis'], 120_000);
    const done = await batchDone(batch.batch_id, 300_000);
    assert.equal(done.counts.completed, 6, `the batch across the restart completes: ${JSON.stringify(done.counts)}`);
    const again = await runsOf(earlier.map((r) => r.run_id));
    const lost = again.filter((r, i) => r.status !== earlier[i]?.status);
    process.stdout.write(`  Redis restarted: ${earlier.length} earlier runs read again, ${lost.length} changed or lost; the batch across it ${done.counts.completed} of 6 completed\n`);
    assert.deepEqual(lost, [], 'every run recorded before the restart is there as it was (AOF)');
  });

  await stack.phase('read /metrics of every service', async () => {
    const published = [stack.apiUrl, stack.mcpUrl.replace(/\/mcp$/, ''), ...[0, 1, 2, 3].map((i) => `http://127.0.0.1:${stack.options.toolPort + i}`)];
    for (const base of published) {
      const res = await fetch(`${base}/metrics`);
      assert.equal(res.status, 200, base);
      assert.match(await res.text(), /^switchyard_/m, base);
    }
    const workers = (await Promise.all((await stack.containers('workers')).map(async (id) => ((await stack.inspect(id, '{{.State.Running}}')) === 'true' ? id : undefined)))).filter((id): id is string => id !== undefined);
    let ended = 0;
    for (const id of workers) {
      const text = await stack.getInside(id, 9464, '/metrics');
      assert.match(text, /^switchyard_stage_duration_seconds/m);
      ended += sampleSum(text, 'switchyard_runs_ended_total');
    }
    process.stdout.write(`  metrics read from ${published.length} published ports and ${workers.length} workers (runs ended, as counted by the live workers: ${ended})\n`);
  });

  await stack.phase('down -v', async () => {
    await stack.compose(['down', '-v', '--remove-orphans'], 300_000);
    const left = await stack.docker(['ps', '-aq', '--filter', `label=com.docker.compose.project=${stack.project}`]);
    assert.equal(left.trim(), '', 'no container of the project is left');
    const volumes = await stack.docker(['volume', 'ls', '-q', '--filter', `label=com.docker.compose.project=${stack.project}`]);
    assert.equal(volumes.trim(), '', 'no volume of the project is left');
  });
});
