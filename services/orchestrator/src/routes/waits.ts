/**
 * Answers to what runs wait for: an approval of an agent's tool call, a signal to a wait step,
 * and the inbox listing both. The checks and the answering are packages/pipeline's
 * (engine/answers.ts), shared with the MCP bridge's inbox tools; this is their HTTP boundary.
 */
import { Router, type Request } from 'express';
import { z } from 'zod';
import { ApprovalRequest } from '@switchyard/contracts';
import { describeZodError, HttpError, methodNotAllowed, principalOf } from '@switchyard/http-kit';
import { answerApproval, AnswerError, answerSignal, inboxApproval, inboxList, type AnswerDeps, type Answerer } from '@switchyard/pipeline';
import type { AppDeps } from '../deps.js';
import { jsonBody } from '../json-body.js';

export const InboxQuery = z.object({
  offset: z.coerce.number().int().min(0).max(100_000).default(0).describe('Items to skip, oldest first'),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  pipeline: z.string().min(1).max(60).optional().describe('Only what runs of this pipeline wait for'),
  run_id: z.string().min(1).max(60).optional().describe('Only what this run waits for'),
});

const REFUSAL_STATUS = { not_found: 404, conflict: 409, invalid: 400, forbidden: 403 } as const;

/** Who answers: the request's key (scopeGuard let it through; the answer is checked again where it is applied). */
const answererOf = (req: Request): Answerer => ({ scopes: principalOf(req)?.scopes ?? [] });

/** An answer refused by the shared checks, as the API's error body. */
function asHttpError(error: unknown): unknown {
  if (!(error instanceof AnswerError)) return error;
  return new HttpError({ status: REFUSAL_STATUS[error.refusal], code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) });
}

export function waitsRouter(deps: AppDeps): Router {
  const router = Router();
  const answers: AnswerDeps = { store: deps.store, waits: deps.waits, pipelines: deps.pipelines, steps: deps.queues.steps };

  router.post('/v1/runs/:runId/approvals/:callId', jsonBody('1mb', deps.jsonMaxDepth), async (req, res) => {
    const readRequest = () => {
      const body = ApprovalRequest.safeParse(req.body);
      if (!body.success) throw new HttpError({ status: 400, code: 'invalid_approval', ...describeZodError(body.error) });
      return body.data;
    };
    const accepted = await answerApproval(answers, { runId: String(req.params.runId), callId: String(req.params.callId), by: answererOf(req) }, readRequest).catch((error: unknown) => {
      throw asHttpError(error);
    });
    res.status(202).json(accepted);
  });
  // The item's own URL: its reason whole, which listings cut.
  router.get('/v1/runs/:runId/approvals/:callId', async (req, res) => {
    const item = await inboxApproval(deps, { runId: String(req.params.runId), callId: String(req.params.callId) });
    if (!item) throw new HttpError({ status: 404, code: 'approval_not_found', message: `Run ${String(req.params.runId)} waits for no approval of call ${String(req.params.callId)}` });
    res.json(item);
  });
  router.all('/v1/runs/:runId/approvals/:callId', methodNotAllowed('GET, POST'));

  router.post('/v1/runs/:runId/signals/:name', jsonBody('1mb', deps.jsonMaxDepth), async (req, res) => {
    const payload: unknown = req.body;
    const accepted = await answerSignal(answers, { runId: String(req.params.runId), name: String(req.params.name), by: answererOf(req) }, payload, req.get('idempotency-key')).catch((error: unknown) => {
      throw asHttpError(error);
    });
    res.status(accepted.status === 'recorded' ? 202 : 200).json(accepted);
  });
  router.all('/v1/runs/:runId/signals/:name', methodNotAllowed('POST'));

  router.get('/v1/inbox', async (req, res) => {
    const query = InboxQuery.safeParse(req.query);
    if (!query.success) throw new HttpError({ status: 400, code: 'invalid_parameters', ...describeZodError(query.error) });
    res.json(await inboxList(deps, query.data));
  });
  router.all('/v1/inbox', methodNotAllowed('GET'));
  return router;
}
