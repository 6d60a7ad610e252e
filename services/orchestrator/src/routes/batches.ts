/**
 * Batches: `POST /v1/batches` records every run and hands the enqueueing to a dispatcher job, so
 * that 10,000 stories are accepted in one write; reading a batch gives counts and a page of runs.
 */
import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import { BatchRequest, PipelineBatchRequest, type BatchAccepted, type BatchList, type BatchView } from '@switchyard/contracts';
import { describeZodError, HttpError, methodNotAllowed, requestKeyId } from '@switchyard/http-kit';
import { BATCH_ID, batchLinks, batchStoryRequests, InputError, newBatchId, pipelineNotFound, startPipelineBatch, startStoryBatch } from '@switchyard/pipeline';
import type { AppDeps } from '../deps.js';
import { claimIdempotencyKey } from '../idempotency.js';
import { jsonBody } from '../json-body.js';
import { notifyHook } from '../notify.js';
import { callerOf } from '../flow-caller.js';
import { batchEventSource } from '../event-sources.js';
import { streamEvents } from '../sse.js';
import { definitionProblems } from './pipelines.js';

/**
 * Starts the batch; a repeat under its Idempotency-Key answers the batch the key made, after
 * finishing a start its first request may have left half done (a process died in it).
 */
async function acceptBatch(deps: AppDeps, req: Request, start: (batchId: string, repeated: boolean) => Promise<{ batchId: string; runIds: string[] }>, fingerprint: { body: unknown }): Promise<{ batchId: string; runIds: string[] }> {
  const claim = await claimIdempotencyKey({ req, redis: deps.redis, keyFor: deps.store.keys.idempotency, scope: 'batches', body: fingerprint.body, freshId: newBatchId(), retentionSeconds: deps.store.retentionSeconds });
  try {
    return await start(claim.id, claim.repeated);
  } catch (error) {
    await claim.release();
    throw error;
  }
}

async function startAnyPipelineBatch(deps: AppDeps, req: Request, res: Response): Promise<{ batchId: string; runIds: string[] }> {
  const body = PipelineBatchRequest.parse(req.body);
  const pipeline = await deps.pipelines.compiled(body.pipeline, body.version);
  if (!pipeline) throw new HttpError({ status: 404, ...pipelineNotFound(body.pipeline, body.version) });
  const inputs = body.items.map((item) => ({ ...body.defaults, ...item }));
  const onRecorded = notifyHook(deps, 'batch', body.notify?.url);
  try {
    return await acceptBatch(deps, req, (batchId, repeated) => startPipelineBatch(deps, { pipeline, inputs, batchId, repeated, owner: requestKeyId(res), caller: callerOf(res, body.priority), ...(onRecorded ? { onRecorded } : {}) }), { body });
  } catch (error) {
    if (error instanceof InputError) throw definitionProblems(error, 'invalid_input', `Input of pipeline ${body.pipeline}`);
    throw error;
  }
}

/** The query of `GET /v1/batches/{id}`: which page of its runs. */
export const BatchPageQuery = z.object({
  offset: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});

/** The query of `GET /v1/batches`. */
export const BatchListQuery = z.object({
  offset: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

function batchIdOf(req: Request): string {
  const batchId = String(req.params.batchId);
  if (!BATCH_ID.test(batchId)) throw new HttpError({ status: 404, code: 'batch_not_found', message: `No batch ${batchId}` });
  return batchId;
}

export function batchesRouter(deps: AppDeps): Router {
  const router = Router();

  router.post('/v1/batches', jsonBody('20mb', deps.jsonMaxDepth), async (req, res) => {
    let created: { batchId: string; runIds: string[] };
    if (req.body && typeof req.body === 'object' && 'pipeline' in (req.body as object)) created = await startAnyPipelineBatch(deps, req, res);
    else {
      const body = BatchRequest.parse(req.body);
      const requests = batchStoryRequests(body);
      const onRecorded = notifyHook(deps, 'batch', body.notify?.url);
      created = await acceptBatch(deps, req, (batchId, repeated) => startStoryBatch(deps, { requests, batchId, repeated, owner: requestKeyId(res), caller: callerOf(res, body.priority), ...(onRecorded ? { onRecorded } : {}) }), { body });
    }
    const { batchId, runIds } = created;
    const links = batchLinks(batchId);
    const accepted: BatchAccepted = { batch_id: batchId, status: 'queued', total: runIds.length, run_ids: runIds, ...links };
    res.status(202).location(links.poll_url).json(accepted);
  });

  router.get('/v1/batches', async (req, res) => {
    const query = BatchListQuery.safeParse(req.query);
    if (!query.success) throw new HttpError({ status: 400, code: 'invalid_parameters', ...describeZodError(query.error) });
    const list: BatchList = { ...(await deps.batches.listBatches(query.data)), ...query.data };
    res.json(list);
  });

  router.get('/v1/batches/:batchId', async (req, res) => {
    const batchId = batchIdOf(req);
    const page = BatchPageQuery.safeParse(req.query);
    if (!page.success) throw new HttpError({ status: 400, code: 'invalid_parameters', ...describeZodError(page.error) });
    const batch = await deps.batches.getBatch(batchId, page.data);
    if (!batch) throw new HttpError({ status: 404, code: 'batch_not_found', message: `No batch ${batchId}` });
    const finished = batch.counts.completed + batch.counts.failed + batch.counts.cancelled;
    const view: BatchView = { ...batch, status: finished === batch.total ? 'done' : 'running', ...batchLinks(batchId) };
    res.json(view);
  });

  router.get('/v1/batches/:batchId/events', async (req, res) => {
    const batchId = batchIdOf(req);
    if (!(await deps.batches.getBatch(batchId, { offset: 0, limit: 1 }))) throw new HttpError({ status: 404, code: 'batch_not_found', message: `No batch ${batchId}` });
    await streamEvents(req, res, { source: batchEventSource(deps, batchId), closeOn: 'done', hub: deps.hub, streams: deps.streams, redis: deps.redis, heartbeatMs: deps.heartbeatMs });
  });

  router.all('/v1/batches', methodNotAllowed('GET', 'POST'));
  router.all('/v1/batches/:batchId', methodNotAllowed('GET'));
  router.all('/v1/batches/:batchId/events', methodNotAllowed('GET'));

  return router;
}
