/**
 * A run: its state, its live events, and cancelling it.
 */
import { Router, type Request } from 'express';
import { z } from 'zod';
import { RunStatus, type RunList } from '@switchyard/contracts';
import { describeZodError, HttpError, methodNotAllowed } from '@switchyard/http-kit';
import { cancelRun, findRun as lookUpRun, toRunView, type RunRecord } from '@switchyard/pipeline';
import type { AppDeps } from '../deps.js';
import { runEventSource } from '../event-sources.js';
import { streamEvents } from '../sse.js';

/** The query of `GET /v1/runs`. */
export const RunListQuery = z.object({
  offset: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  status: RunStatus.optional(),
  pipeline: z.string().min(1).max(60).optional().describe('Only runs of this pipeline'),
});

async function findRun(deps: AppDeps, req: Request): Promise<RunRecord> {
  const runId = String(req.params.runId);
  const run = await lookUpRun(deps, runId);
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
    // A compacted run's events are in its archive: its source reads there, under the same ids.
    await streamEvents(req, res, { source: runEventSource(deps, run.id), closeOn: 'done', hub: deps.hub, streams: deps.streams, redis: deps.redis, heartbeatMs: deps.heartbeatMs });
  });

  router.delete('/v1/runs/:runId', async (req, res) => {
    const runId = String(req.params.runId);
    const cancelled = await cancelRun(deps, runId);
    switch (cancelled.outcome) {
      case 'not_found':
        throw new HttpError({ status: 404, code: 'run_not_found', message: `No run ${runId}` });
      case 'finished':
        throw new HttpError({ status: 409, code: 'run_finished', message: `Run ${runId} has already ${cancelled.status}`, details: { status: cancelled.status } });
      default:
        res.json(toRunView(cancelled.run));
    }
  });

  router.get('/v1/runs', async (req, res) => {
    const query = RunListQuery.safeParse(req.query);
    if (!query.success) throw new HttpError({ status: 400, code: 'invalid_parameters', ...describeZodError(query.error) });
    const runs = await deps.store.listRuns(query.data);
    const list: RunList = { runs: runs.map(toRunView), offset: query.data.offset, limit: query.data.limit };
    res.json(list);
  });

  router.all('/v1/runs', methodNotAllowed('GET'));
  router.all('/v1/runs/:runId', methodNotAllowed('GET', 'DELETE'));
  router.all('/v1/runs/:runId/events', methodNotAllowed('GET'));

  return router;
}
