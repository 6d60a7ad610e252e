/**
 * A run: its state, its live events, and cancelling it.
 */
import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import { RunStatus, type RunList } from '@switchyard/contracts';
import { allows } from '@switchyard/config';
import { describeZodError, HttpError, methodNotAllowed, principalOf, requestKeyId } from '@switchyard/http-kit';
import { cancelRun, ConcurrencyGates, waitingOf, releaseWaits, RUN_FIELDS, RUN_ID, stringifyWithRaw, toRunView, type RunField, type RunRecord, type RunViewer } from '@switchyard/pipeline';
import type { AppDeps } from '../deps.js';
import { runEventSource } from '../event-sources.js';
import { streamEvents } from '../sse.js';

/** Who asks, for the run view: another caller's API key id is shown only to admin keys. */
function viewerOf(req: Request, res: Response): RunViewer {
  const principal = principalOf(req);
  // No principal: a deployment without API keys, where every caller is the same anonymous one.
  return { keyId: requestKeyId(res), admin: !principal || allows(principal.scopes, 'admin') };
}

/** What `fields` may name: the run view's own fields, and `input` for its `request`. */
const FIELD_NAMES = [...RUN_FIELDS, 'input'] as const;
const FIELD_LIST = new RegExp(`^(${FIELD_NAMES.join('|')})(,(${FIELD_NAMES.join('|')}))*$`);

/** The query of `GET /v1/runs`. */
export const RunListQuery = z.object({
  offset: z.coerce.number().int().min(0).max(10_000).default(0).describe('Runs to skip, newest first (the newest 10,000 are listed)'),
  limit: z.coerce.number().int().min(1).max(200).default(50).describe('Most runs in the page; a page also stops before passing the listing budget (`LIST_PAGE_MAX_BYTES`, default 4 MiB)'),
  status: RunStatus.optional(),
  pipeline: z.string().min(1).max(60).optional().describe('Only runs of this pipeline'),
  fields: z
    .string()
    .regex(FIELD_LIST, `a comma-separated list of ${FIELD_NAMES.join(', ')}`)
    .optional()
    .describe('What to add to each summary, as the run\'s own URL gives it: `request` (or `input`), `result`, `stages`, `error`, comma-separated'),
});

/** The fields a `fields` parameter names, `input` read as `request`. */
function fieldsOf(list: string | undefined): RunField[] {
  if (!list) return [];
  return [...new Set(list.split(',').map((name) => (name === 'input' ? 'request' : (name as RunField))))];
}

/** The run as stored: its request and result left as the JSON text they are (see stringifyWithRaw). */
async function findRun(deps: AppDeps, req: Request): Promise<RunRecord> {
  const runId = String(req.params.runId);
  const run = RUN_ID.test(runId) ? await deps.store.getRun(runId, { raw: true }) : null;
  if (!run) throw new HttpError({ status: 404, code: 'run_not_found', message: `No run ${runId}` });
  return run;
}

export function runsRouter(deps: AppDeps): Router {
  const router = Router();

  router.get('/v1/runs/:runId', async (req, res) => {
    // The input and result are sent as they are stored, not parsed and written out again.
    const run = await findRun(deps, req);
    const view = toRunView(run, viewerOf(req, res));
    // A queued run says why it waits (its key's line, its place in its queue).
    if (view.flow && run.status === 'queued') {
      const waiting = await waitingOf({ store: deps.store, fair: deps.queues.steps.fair, gates: new ConcurrencyGates({ redis: deps.store.redis, prefix: deps.store.prefix }) }, run);
      if (waiting) view.flow.waiting = waiting;
    }
    res.type('json').send(stringifyWithRaw(view));
  });

  router.get('/v1/runs/:runId/events', async (req, res) => {
    const run = await findRun(deps, req);
    // A compacted run's events are in its archive: its source reads there, under the same ids.
    await streamEvents(req, res, { source: runEventSource(deps, run.id), closeOn: 'done', hub: deps.hub, streams: deps.streams, redis: deps.redis, heartbeatMs: deps.heartbeatMs });
  });

  router.delete('/v1/runs/:runId', async (req, res) => {
    const runId = String(req.params.runId);
    // What it and its children waited for leaves the inbox, and their waiting jobs wake to find them ended.
    const cancelled = await cancelRun({ store: deps.store, releaseWaits: (id) => releaseWaits({ waits: deps.waits, steps: deps.queues.steps }, id) }, runId);
    switch (cancelled.outcome) {
      case 'not_found':
        throw new HttpError({ status: 404, code: 'run_not_found', message: `No run ${runId}` });
      case 'finished':
        throw new HttpError({ status: 409, code: 'run_finished', message: `Run ${runId} has already ${cancelled.status}`, details: { status: cancelled.status } });
      default:
        res.json(toRunView(cancelled.run, viewerOf(req, res)));
    }
  });

  router.get('/v1/runs', async (req, res) => {
    const query = RunListQuery.safeParse(req.query);
    if (!query.success) throw new HttpError({ status: 400, code: 'invalid_parameters', ...describeZodError(query.error) });
    const { fields, ...page } = query.data;
    const listed = await deps.store.listRuns({ ...page, fields: fieldsOf(fields) });
    const list: RunList = { runs: listed.runs, offset: page.offset, limit: page.limit, next_offset: listed.next_offset, truncated: listed.truncated };
    res.type('json').send(stringifyWithRaw(list));
  });

  router.all('/v1/runs', methodNotAllowed('GET'));
  router.all('/v1/runs/:runId', methodNotAllowed('GET', 'DELETE'));
  router.all('/v1/runs/:runId/events', methodNotAllowed('GET'));

  return router;
}
