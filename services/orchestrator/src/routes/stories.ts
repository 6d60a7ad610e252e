/**
 * `POST /v1/stories`: records a queued run and enqueues its first flow.
 */
import { Router } from 'express';
import { StoryRequest, type RunAccepted } from '@switchyard/contracts';
import { methodNotAllowed } from '@switchyard/http-kit';
import { newRunId, runLinks, startStoryRun } from '@switchyard/pipeline';
import type { AppDeps } from '../deps.js';
import { claimIdempotencyKey } from '../idempotency.js';
import { jsonBody } from '../json-body.js';

export function storiesRouter(deps: AppDeps): Router {
  const router = Router();
  router.post('/v1/stories', jsonBody('64kb', deps.jsonMaxDepth), async (req, res) => {
    const request = StoryRequest.parse(req.body);
    const claim = await claimIdempotencyKey({ req, redis: deps.redis, keyFor: deps.store.keys.idempotency, scope: 'stories', body: request, freshId: newRunId(), retentionSeconds: deps.store.retentionSeconds });
    const runId = claim.id;
    if (!claim.repeated) {
      try {
        await startStoryRun(deps, { request, runId });
      } catch (error) {
        await claim.release();
        throw error;
      }
    }
    const status = (await deps.store.getStatus(runId)) ?? 'queued';
    const links = runLinks(runId);
    const accepted: RunAccepted = { run_id: runId, status, ...links };
    res.status(202).location(links.poll_url).json(accepted);
  });
  router.all('/v1/stories', methodNotAllowed('POST'));

  return router;
}
