/**
 * A worker process as Kubernetes sees it: /livez and /readyz on METRICS_PORT. Told SIGTERM with
 * stages running, it reports `draining` (not ready, still alive) at once, finishes those stages
 * within its grace, and exits 0; nothing it ran is run again.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, test } from 'node:test';
import { freePort } from '@switchyard/redis';
import { countingAuthor } from '../../services/orchestrator/src/testing/authors.js';
import { readSse } from '../../services/orchestrator/src/testing/events.js';
import { startTestStack, type TestStack } from '../../services/orchestrator/src/testing/stack.js';
import { waitFor, WorkerProcesses } from '../../services/orchestrator/src/testing/worker-processes.js';

const author = countingAuthor();
let stack: TestStack;
const workers = new WorkerProcesses(() => stack);

before(async () => {
  stack = await startTestStack({ label: 'worker-drain', author, inProcessWorkers: false });
});
after(async () => {
  await workers.killAll();
  await stack.close();
});

const status = (url: string) => fetch(url).then(async (res) => ({ code: res.status, status: ((await res.json()) as { status: string }).status }), () => ({ code: 0, status: 'unreachable' }));

test('a worker told SIGTERM mid-stage is alive and not ready while it drains, finishes its stages and exits 0', async (t) => {
  stack.tools.services.writing.faults.chunkDelayMs = 60;
  t.after(() => (stack.tools.services.writing.faults.chunkDelayMs = 0));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const calls = { ...author.calls };
  const worker = await workers.startListening({ METRICS_PORT: String(port), SHUTDOWN_GRACE_MS: '20000' });
  await waitFor(() => status(`${base}/readyz`), (s) => s.code === 200, 'the worker is ready once its queues listen', 30_000);
  assert.deepEqual(await status(`${base}/livez`), { code: 200, status: 'alive' });

  const { body } = await stack.json<{ run_id: string }>('/v1/stories', { method: 'POST', body: JSON.stringify({ topic: 'a ferryman who counts the stars' }) });
  await readSse(await stack.request(`/v1/runs/${body.run_id}/events`), (e) => e.event === 'content'); // the writers are streaming

  const exited = once(worker, 'exit');
  worker.kill('SIGTERM');
  const seen = await waitFor(
    () => Promise.all([status(`${base}/readyz`), status(`${base}/livez`)]),
    ([ready]) => ready.status === 'draining',
    'the worker reports draining',
    10_000,
  );
  assert.deepEqual(seen, [{ code: 503, status: 'draining' }, { code: 200, status: 'alive' }], 'draining: not ready, and alive (no restart)');
  const [code] = (await exited) as [number | null];
  assert.equal(code, 0, 'it exits cleanly within its grace');

  const midway = (await stack.json<{ stages: { name: string; status: string; attempts: number }[] }>(`/v1/runs/${body.run_id}`)).body;
  const writes = midway.stages.filter((s) => s.name.startsWith('write.'));
  assert.ok(writes.length > 0);
  for (const stage of writes) assert.deepEqual([stage.name, stage.status, stage.attempts], [stage.name, 'completed', 1], 'finished before the worker left');

  await workers.startListening();
  const run = await stack.waitForRun(body.run_id, 30_000);
  assert.equal(run.status, 'completed', JSON.stringify(run.error));
  assert.equal(author.calls.writeSection - calls.writeSection, 4, 'no section was written twice');
});
