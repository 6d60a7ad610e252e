/**
 * `POST /v1/aceflow/runs`: a stage-generation pipeline for an AceFlow project. The run is read,
 * followed and cancelled like any other, at `/v1/runs/{run_id}`.
 */
import { Router } from 'express';
import { analysisDataSchema } from '@switchyard/aceflow';
import { AceflowRunRequest, type AceflowRunAccepted } from '@switchyard/contracts';
import { describeZodError, HttpError, methodNotAllowed, requestKeyId } from '@switchyard/http-kit';
import { AceflowRangeError, aceflowRunStages, newRunId, runLinks, startAceflowRun } from '@switchyard/pipeline';
import type { AppDeps } from '../deps.js';
import { claimIdempotencyKey } from '../idempotency.js';
import { jsonBody } from '../json-body.js';
import { callerOf } from '../flow-caller.js';

/** An analysis may be up to 10 MB (seed 000); the body around it adds little. */
const BODY_LIMIT = '11mb';

function invalid(message: string, details?: unknown): HttpError {
  return new HttpError({ status: 400, code: 'invalid_parameters', message, details });
}

export function aceflowRouter(deps: AppDeps): Router {
  const router = Router();
  // The JSON body every route takes: nesting bounded on the raw text before it is parsed.
  router.post('/v1/aceflow/runs', jsonBody(BODY_LIMIT, deps.jsonMaxDepth), async (req, res) => {
    const request = AceflowRunRequest.parse(req.body);
    if (request.analysis) {
      // The seed's data rules, checked before anything is recorded.
      const analysis = analysisDataSchema.safeParse(request.analysis);
      if (!analysis.success) {
        const { message, details } = describeZodError(analysis.error);
        throw invalid(`analysis: ${message}`, details);
      }
    }
    let stages: AceflowRunAccepted['stages'];
    try {
      stages = aceflowRunStages(request);
    } catch (error) {
      if (error instanceof AceflowRangeError) throw invalid(error.message);
      throw error;
    }
    const claim = await claimIdempotencyKey({ req, redis: deps.redis, keyFor: deps.store.keys.idempotency, scope: 'aceflow', body: request, freshId: newRunId(), retentionSeconds: deps.store.retentionSeconds });
    let status: AceflowRunAccepted['status'];
    try {
      // A repeat finishes a start its first request may have left half done (a process died in it).
      ({ status } = await startAceflowRun(deps, { request, runId: claim.id, repeated: claim.repeated, owner: requestKeyId(res), caller: callerOf(res, undefined) }));
    } catch (error) {
      await claim.release();
      throw error;
    }
    const links = runLinks(claim.id);
    const accepted: AceflowRunAccepted = { run_id: claim.id, status, stages, ...links };
    res.status(202).location(links.poll_url).json(accepted);
  });
  router.all('/v1/aceflow/runs', methodNotAllowed('POST'));

  return router;
}
