/**
 * A run: its state, its live events, and cancelling it.
 */
import { Router, type Request } from 'express';
import { TERMINAL_STATUSES, type RunView } from '@switchyard/contracts';
import { HttpError } from '@switchyard/http-kit';
import type { RunRecord } from '@switchyard/pipeline';
import type { AppDeps } from '../deps.js';
import { streamEvents } from '../sse.js';
import { RUN_ID, runLinks } from './links.js';

export function toRunView(run: RunRecord): RunView {
  const ended = TERMINAL_STATUSES.includes(run.status);
  return {
    run_id: run.id,
    kind: run.kind,
    status: run.status,
    progress: run.status === 'completed' ? 100 : run.progress,
    created_at: run.created_at,
    updated_at: run.updated_at,
    batch_id: run.batch_id,
    request: run.request,
    // Once a run has ended, a stage that never finished will not: show it as cancelled.
    stages: run.stages.map((s) => (ended && !['completed', 'failed', 'cancelled'].includes(s.status) ? { ...s, status: 'cancelled' } : s)),
    result: run.result,
    error: run.error,
    ...runLinks(run.id),
  };
}

async function findRun(deps: AppDeps, req: Request): Promise<RunRecord> {
  const runId = String(req.params.runId);
  const run = RUN_ID.test(runId) ? await deps.store.getRun(runId) : null;
  if (!run) throw new HttpError({ status: 404, code: 'run_not_found', message: `No run ${runId}` });
  return run;
}

export function runsRouter(deps: AppDeps): Router {
  const router = Router();

  router.get('/v1/runs/:runId', async (req, res) => {
    res.json(toRunView(await findRun(deps, req)));
  });

  router.get('/v1/runs/:runId/events', async (req, res) => {
    const run = await findRun(deps, req);
    await streamEvents(req, res, { redis: deps.redis, key: deps.store.keys.events(run.id), closeOn: 'done', streams: deps.streams, heartbeatMs: deps.heartbeatMs });
  });

  router.delete('/v1/runs/:runId', async (req, res) => {
    const run = await findRun(deps, req);
    const change = await deps.store.transition({ runId: run.id, from: ['queued', 'running'], to: 'cancelled', error: { code: 'cancelled', message: 'The run was cancelled' } });
    if (!change.moved && change.previous !== 'cancelled') {
      throw new HttpError({ status: 409, code: 'run_finished', message: `Run ${run.id} has already ${change.previous}`, details: { status: change.previous } });
    }
    await deps.store.publishCancel(run.id);
    res.json(toRunView((await deps.store.getRun(run.id)) ?? run));
  });

  return router;
}
