/**
 * Answers to what runs wait for: an approval of an agent's tool call, a signal to a wait step,
 * and the inbox listing both. An answer is recorded first, then the waiting job (delayed) is woken;
 * a job that parks after the answer came finds it itself (see the workers' wait-step.ts).
 */
import { Router } from 'express';
import { z } from 'zod';
import { ApprovalRequest, TERMINAL_STATUSES, type ApprovalAccepted, type InboxItem, type InboxList, type SignalAccepted } from '@switchyard/contracts';
import { describeZodError, HttpError, methodNotAllowed } from '@switchyard/http-kit';
import { RUN_ID, SIGNAL_NAME, ToolArgumentChecker, wakeWaitingJob, type WaitRecord } from '@switchyard/pipeline';
import type { AppDeps } from '../deps.js';
import { jsonBody } from '../json-body.js';

export const InboxQuery = z.object({
  offset: z.coerce.number().int().min(0).max(100_000).default(0).describe('Items to skip, oldest first'),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  pipeline: z.string().min(1).max(60).optional().describe('Only what runs of this pipeline wait for'),
});

/** Call ids are the model's; bounded, and without what would need escaping in a field name. */
const CALL_ID = /^[A-Za-z0-9_.:-]{1,256}$/;

const answerUrl = (record: WaitRecord) => (record.kind === 'approval' ? `/v1/runs/${record.run_id}/approvals/${encodeURIComponent(record.key)}` : `/v1/runs/${record.run_id}/signals/${record.key}`);

export function inboxItem(record: WaitRecord): InboxItem {
  return {
    run_id: record.run_id,
    pipeline: record.pipeline,
    stage: record.stage,
    kind: record.kind,
    key: record.key,
    created_at: record.created_at,
    timeout_at: record.timeout_at ?? null,
    ...(record.kind === 'approval' ? { tool: record.tool, arguments: record.arguments, reason: record.reason ?? null } : {}),
    schema: (record.kind === 'approval' ? record.parameters : record.schema) ?? null,
    answer_url: answerUrl(record),
  };
}

async function liveRun(deps: AppDeps, runId: string): Promise<void> {
  const status = RUN_ID.test(runId) ? await deps.store.getStatus(runId) : null;
  if (!status) throw new HttpError({ status: 404, code: 'run_not_found', message: `No run ${runId}` });
  if (TERMINAL_STATUSES.includes(status)) throw new HttpError({ status: 409, code: 'run_finished', message: `Run ${runId} has already ${status}`, details: { status } });
}

const wake = (deps: AppDeps, record: WaitRecord) => wakeWaitingJob(deps.queues.steps, record);

export function waitsRouter(deps: AppDeps): Router {
  const router = Router();
  const checker = new ToolArgumentChecker();

  router.post('/v1/runs/:runId/approvals/:callId', jsonBody('1mb', deps.jsonMaxDepth), async (req, res) => {
    const runId = String(req.params.runId);
    const callId = String(req.params.callId);
    await liveRun(deps, runId);
    const record = CALL_ID.test(callId) ? await deps.waits.get(runId, 'approval', callId) : undefined;
    if (!record && CALL_ID.test(callId) && (await deps.waits.decision(runId, callId))) throw new HttpError({ status: 409, code: 'approval_decided', message: `Call ${callId} of run ${runId} was decided already` });
    if (!record) throw new HttpError({ status: 404, code: 'approval_not_found', message: `Run ${runId} waits for no approval of call ${callId}` });
    const body = ApprovalRequest.safeParse(req.body);
    if (!body.success) throw new HttpError({ status: 400, code: 'invalid_approval', ...describeZodError(body.error) });
    const edited = body.data.arguments;
    if (edited && record.parameters) {
      const problems = checker.problems(record.parameters, edited);
      if (problems.length > 0) throw new HttpError({ status: 400, code: 'invalid_arguments', message: `The edited arguments do not fit tool ${record.tool}'s schema: ${problems.join('; ')}`, details: { problems: problems.map((p) => ({ path: `arguments${p.startsWith('/') ? p.split(' ')[0]?.replace(/\//g, '.') : ''}`, message: p })) } });
    }
    const decided = await deps.waits.decide(runId, callId, { approve: body.data.approve, ...(edited ? { arguments: edited } : {}), ...(body.data.note ? { note: body.data.note } : {}), at: new Date().toISOString() });
    if (!decided) throw new HttpError({ status: 409, code: 'approval_decided', message: `Call ${callId} of run ${runId} was decided already` });
    await wake(deps, record);
    const accepted: ApprovalAccepted = { run_id: runId, call_id: callId, approve: body.data.approve, status: 'recorded' };
    res.status(202).json(accepted);
  });
  router.all('/v1/runs/:runId/approvals/:callId', methodNotAllowed('POST'));

  router.post('/v1/runs/:runId/signals/:name', jsonBody('1mb', deps.jsonMaxDepth), async (req, res) => {
    const runId = String(req.params.runId);
    const name = String(req.params.name);
    await liveRun(deps, runId);
    if (!SIGNAL_NAME.test(name)) throw new HttpError({ status: 404, code: 'signal_not_found', message: `No signal ${name}` });
    const run = await deps.store.getRun(runId);
    const pipeline = run?.pipeline ? await deps.pipelines.pinned(run.pipeline.name, run.pipeline.version) : null;
    const step = pipeline ? [...pipeline.steps.values()].find((s) => s.target.kind === 'wait' && s.target.wait.signal === name) : undefined;
    if (!step || step.target.kind !== 'wait') throw new HttpError({ status: 404, code: 'signal_not_found', message: `No step of run ${runId} waits for signal ${name}` });
    const payload: unknown = req.body;
    const problems = step.target.wait.payloadProblems(payload);
    if (problems.length > 0) throw new HttpError({ status: 400, code: 'invalid_signal', message: `The payload does not fit signal ${name}'s schema: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`, details: { problems } });
    const idempotencyKey = req.get('idempotency-key')?.slice(0, 200);
    const outcome = await deps.waits.signal(runId, name, { payload, at: new Date().toISOString(), ...(idempotencyKey ? { idempotency_key: idempotencyKey } : {}) });
    const record = await deps.waits.get(runId, 'signal', name);
    if (record) await wake(deps, record);
    const accepted: SignalAccepted = { run_id: runId, signal: name, status: outcome };
    res.status(outcome === 'recorded' ? 202 : 200).json(accepted);
  });
  router.all('/v1/runs/:runId/signals/:name', methodNotAllowed('POST'));

  router.get('/v1/inbox', async (req, res) => {
    const query = InboxQuery.safeParse(req.query);
    if (!query.success) throw new HttpError({ status: 400, code: 'invalid_parameters', ...describeZodError(query.error) });
    const { offset, limit, pipeline } = query.data;
    const page = await deps.waits.inbox({ offset, limit, pipeline });
    const list: InboxList = { items: page.items.map(inboxItem), offset, limit, total: page.total, next_offset: offset + page.items.length < page.total ? offset + limit : null };
    res.json(list);
  });
  router.all('/v1/inbox', methodNotAllowed('GET'));
  return router;
}
