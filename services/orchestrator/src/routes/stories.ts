/**
 * `POST /v1/stories`: records a queued run and enqueues its first flow.
 */
import { Router } from 'express';
import { z } from 'zod';
import { StoryRequest, type RunAccepted, type RunStatus } from '@switchyard/contracts';
import { describeZodError, HttpError, methodNotAllowed, requestKeyId } from '@switchyard/http-kit';
import { newRunId, runLinks, startStoryRun } from '@switchyard/pipeline';
import type { AppDeps } from '../deps.js';
import { claimIdempotencyKey } from '../idempotency.js';
import { jsonBody } from '../json-body.js';
import { notifyHook } from '../notify.js';
import { callerOf, PriorityQuery } from '../flow-caller.js';

/** The query of `POST /v1/stories`: a webhook told when the run ends. */
export const StoryQuery = z.object({
  notify_url: z.string().min(1).max(2048).optional().describe('A webhook told once when the run ends (`notify.url`), signed; its host must be in `WEBHOOK_ALLOW`, or the story is refused with 400'),
  priority: PriorityQuery,
});

export function storiesRouter(deps: AppDeps): Router {
  const router = Router();
  router.post('/v1/stories', jsonBody('64kb', deps.jsonMaxDepth), async (req, res) => {
    const query = StoryQuery.safeParse(req.query);
    if (!query.success) throw new HttpError({ status: 400, code: 'invalid_parameters', ...describeZodError(query.error) });
    const onRecorded = notifyHook(deps, 'run', query.data.notify_url);
    const request = StoryRequest.parse(req.body);
    const claim = await claimIdempotencyKey({ req, redis: deps.redis, keyFor: deps.store.keys.idempotency, scope: 'stories', body: request, freshId: newRunId(), retentionSeconds: deps.store.retentionSeconds });
    const runId = claim.id;
    let status: RunStatus;
    try {
      // A repeat finishes a start its first request may have left half done (a process died in it).
      ({ status } = await startStoryRun(deps, { request, runId, repeated: claim.repeated, owner: requestKeyId(res), caller: callerOf(res, query.data.priority), ...(onRecorded ? { onRecorded } : {}) }));
    } catch (error) {
      await claim.release();
      throw error;
    }
    const links = runLinks(runId);
    const accepted: RunAccepted = { run_id: runId, status, ...links };
    res.status(202).location(links.poll_url).json(accepted);
  });
  router.all('/v1/stories', methodNotAllowed('POST'));

  return router;
}
