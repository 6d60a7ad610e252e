/**
 * Batches: `POST /v1/batches` records every run and hands the enqueueing to a dispatcher job, so
 * that 10,000 stories are accepted in one write; reading a batch gives counts and a page of runs.
 */
import { Router, type Request } from 'express';
import { z } from 'zod';
import { BatchRequest } from '@switchyard/contracts';
import { describeZodError, HttpError, methodNotAllowed } from '@switchyard/http-kit';
import { BATCH_ID, batchLinks, batchStoryRequests, newBatchId, startStoryBatch } from '@switchyard/pipeline';
import type { AppDeps } from '../deps.js';
import { claimIdempotencyKey } from '../idempotency.js';
import { jsonBody } from '../json-body.js';
import { streamEvents } from '../sse.js';

const Page = z.object({
  offset: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});

function batchIdOf(req: Request): string {
  const batchId = String(req.params.batchId);
  if (!BATCH_ID.test(batchId)) throw new HttpError({ status: 404, code: 'batch_not_found', message: `No batch ${batchId}` });
  return batchId;
}

export function batchesRouter(deps: AppDeps): Router {
  const router = Router();

  router.post('/v1/batches', jsonBody('20mb'), async (req, res) => {
    const body = BatchRequest.parse(req.body);
    const requests = batchStoryRequests(body);
    const claim = await claimIdempotencyKey({ req, redis: deps.redis, keyFor: deps.store.keys.idempotency, scope: 'batches', body, freshId: newBatchId(), retentionSeconds: deps.store.retentionSeconds });
    let batchId = claim.id;
    let runIds: string[];
    if (claim.repeated) {
      runIds = (await deps.batches.getBatch(batchId, { offset: 0, limit: requests.length }))?.runs.map((r) => r.run_id) ?? [];
    } else {
      try {
        ({ batchId, runIds } = await startStoryBatch(deps, { requests, batchId }));
      } catch (error) {
        await claim.release();
        throw error;
      }
    }
    const links = batchLinks(batchId);
    res.status(202).location(links.poll_url).json({ batch_id: batchId, status: 'queued', total: runIds.length, run_ids: runIds, ...links });
  });

  router.get('/v1/batches/:batchId', async (req, res) => {
    const batchId = batchIdOf(req);
    const page = Page.safeParse(req.query);
    if (!page.success) throw new HttpError({ status: 400, code: 'invalid_parameters', ...describeZodError(page.error) });
    const batch = await deps.batches.getBatch(batchId, page.data);
    if (!batch) throw new HttpError({ status: 404, code: 'batch_not_found', message: `No batch ${batchId}` });
    const finished = batch.counts.completed + batch.counts.failed + batch.counts.cancelled;
    res.json({ ...batch, status: finished === batch.total ? 'done' : 'running', ...batchLinks(batchId) });
  });

  router.get('/v1/batches/:batchId/events', async (req, res) => {
    const batchId = batchIdOf(req);
    if (!(await deps.batches.getBatch(batchId, { offset: 0, limit: 1 }))) throw new HttpError({ status: 404, code: 'batch_not_found', message: `No batch ${batchId}` });
    await streamEvents(req, res, { redis: deps.redis, key: deps.store.keys.batchEvents(batchId), closeOn: 'done', streams: deps.streams, heartbeatMs: deps.heartbeatMs });
  });

  router.all('/v1/batches', methodNotAllowed('POST'));
  router.all('/v1/batches/:batchId', methodNotAllowed('GET'));
  router.all('/v1/batches/:batchId/events', methodNotAllowed('GET'));

  return router;
}
