/**
 * Answering what runs wait for, shared by the orchestrator's routes, the MCP bridge's inbox tools
 * and its elicitation: an approval of an agent's tool call, a signal to a wait step, and the inbox
 * listing both. An answer is recorded first, then the waiting job (delayed) is woken; a job that
 * parks after the answer came finds it itself (see the workers' wait-step.ts).
 */
import { TERMINAL_STATUSES, type ApprovalAccepted, type ApprovalRequest, type InboxItem, type InboxList, type SignalAccepted } from '@switchyard/contracts';
import { ToolArgumentChecker } from '../definition/tool-arguments.js';
import { SIGNAL_NAME } from '../definition/wait-schema.js';
import type { PipelineStore } from '../store/pipeline-store.js';
import type { RunStore } from '../store/run-store.js';
import { jsonBytesWithin } from '../store/limits.js';
import { withinBudget } from '../store/page-budget.js';
import { RUN_ID } from '../store/run-view.js';
import { CALL_ID, type RunWaits, type WaitRecord } from '../store/run-waits.js';
import type { StepQueues } from './step-jobs.js';
import { wakeWaitingJob } from './wake.js';
import { crashPoint } from '../crash-points.js';

export interface AnswerDeps {
  store: RunStore;
  waits: RunWaits;
  pipelines: PipelineStore;
  steps: StepQueues;
}

/** How an answer was refused: `not_found` (404), `conflict` (409), `invalid` (400), `forbidden` (403: the key may not answer). */
export type AnswerRefusal = 'not_found' | 'conflict' | 'invalid' | 'forbidden';

/**
 * Who gives an answer: the scopes of the key it came with. Answering needs `run` (an approval makes
 * a tool call, a signal becomes a step's output), and it is checked here, where every answer is
 * applied (the API's routes, the MCP tools, MCP elicitation), not only where it was asked for.
 */
export interface Answerer {
  scopes: Iterable<string>;
}

/** The scope an answer needs. */
export const ANSWER_SCOPE = 'run';

/** Whether a key holding `scopes` may answer what runs wait for. */
export function mayAnswer(answerer: Answerer): boolean {
  for (const scope of answerer.scopes) if (scope === ANSWER_SCOPE) return true;
  return false;
}

function checkAnswerer(answerer: Answerer): void {
  if (mayAnswer(answerer)) return;
  const scopes = [...answerer.scopes];
  throw new AnswerError({ refusal: 'forbidden', code: 'insufficient_scope', message: `Answering what a run waits for needs the '${ANSWER_SCOPE}' scope; the key has ${scopes.map((s) => `'${s}'`).join(', ') || 'none'}`, details: { required_scope: ANSWER_SCOPE, scopes } });
}

/** An answer refused: its `code` and `details` are what the API and the MCP tools report. */
export class AnswerError extends Error {
  override name = 'AnswerError';
  readonly refusal: AnswerRefusal;
  readonly code: string;
  readonly details: Record<string, unknown> | undefined;

  constructor(options: { refusal: AnswerRefusal; code: string; message: string; details?: Record<string, unknown> }) {
    super(options.message);
    this.refusal = options.refusal;
    this.code = options.code;
    this.details = options.details;
  }
}


/** The most bytes of a signal's payload or an approval's edited arguments, as JSON: the API's body limit (1 MiB), for the MCP tools too. */
export const MAX_ANSWER_BYTES = 1024 * 1024;
/** The deepest nesting of an answer: the API's JSON bodies nest at most 64 (http-kit's MAX_JSON_DEPTH). */
export const MAX_ANSWER_DEPTH = 64;

/** The most bytes of an `Idempotency-Key` kept. */
const IDEMPOTENCY_KEY_CHARS = 200;

// One per process: it keeps tool schemas compiled.
const checker = new ToolArgumentChecker();

const answerUrl = (record: WaitRecord) => (record.kind === 'approval' ? `/v1/runs/${record.run_id}/approvals/${encodeURIComponent(record.key)}` : `/v1/runs/${record.run_id}/signals/${record.key}`);

/** Characters of a model's reason a listing carries: the reason may be 256 KiB, and a page lists many calls of one turn. */
export const LISTED_REASON_CHARS = 500;

/** The reason as a listing shows it: its first LISTED_REASON_CHARS characters. */
function listedReason(record: WaitRecord): { reason: string | null; reason_truncated?: true } {
  const reason = record.reason;
  if (!reason) return { reason: reason ?? null };
  // Kept cut already (reason_turn), or recorded whole before reasons were kept so.
  return reason.length > LISTED_REASON_CHARS || record.reason_turn !== undefined ? { reason: reason.slice(0, LISTED_REASON_CHARS), reason_truncated: true } : { reason };
}

/**
 * A waiting call's arguments as the object an approval takes. They were parsed and checked against
 * the tool's schema before the call waited, so the text is an object's; anything else is left out.
 */
function argumentsOf(text: string | undefined): { arguments?: Record<string, unknown> } {
  if (text === undefined) return {};
  try {
    const parsed: unknown = JSON.parse(text || '{}');
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? { arguments: parsed as Record<string, unknown> } : {};
  } catch {
    return {};
  }
}

/** An item as a listing shows it (its reason cut, see LISTED_REASON_CHARS); `whole` for the item's own URL. */
export function inboxItem(record: WaitRecord, options: { whole?: boolean } = {}): InboxItem {
  return {
    run_id: record.run_id,
    pipeline: record.pipeline,
    stage: record.stage,
    kind: record.kind,
    key: record.key,
    created_at: record.created_at,
    timeout_at: record.timeout_at ?? null,
    ...(record.kind === 'approval' ? { tool: record.tool, ...argumentsOf(record.arguments), ...(options.whole ? { reason: record.reason ?? null } : listedReason(record)) } : {}),
    schema: (record.kind === 'approval' ? record.parameters : record.schema) ?? null,
    answer_url: answerUrl(record),
  };
}

/**
 * A page of the inbox, oldest first (`query` already bounded by the caller's schema): of one run,
 * or of one pipeline, or all; within the listing budget (LIST_PAGE_MAX_BYTES) like any listing,
 * stopping early (`truncated`) when the next item would pass it.
 */
export async function inboxList(deps: Pick<AnswerDeps, 'waits' | 'store'>, query: { offset: number; limit: number; pipeline?: string | undefined; run_id?: string | undefined }): Promise<InboxList> {
  const { offset, limit, pipeline, run_id: runId } = query;
  const page = runId ? await runPage(deps, runId, query) : await deps.waits.inbox({ offset, limit, pipeline });
  const more = offset + page.items.length < page.total;
  const fitted = withinBudget(page.items.map((record) => inboxItem(record)), { budget: deps.store.limits.listPageBytes, offset, more });
  return { items: fitted.items, offset, limit, total: page.total, next_offset: fitted.next_offset, truncated: fitted.truncated };
}

/** One waiting call as its own URL shows it, its reason whole; undefined when the run waits for no approval of it. */
export async function inboxApproval(deps: Pick<AnswerDeps, 'waits'>, target: { runId: string; callId: string }): Promise<InboxItem | undefined> {
  if (!RUN_ID.test(target.runId) || !CALL_ID.test(target.callId)) return undefined;
  const record = await deps.waits.get(target.runId, 'approval', target.callId);
  return record ? inboxItem({ ...record, reason: await deps.waits.wholeReason(record) }, { whole: true }) : undefined;
}

/** A run's own waits, from its record: a run waits on a few at most (one per agent call or wait step in flight). */
async function runPage(deps: Pick<AnswerDeps, 'waits' | 'store'>, runId: string, query: { offset: number; limit: number; pipeline?: string | undefined }): Promise<{ items: WaitRecord[]; total: number }> {
  const status = RUN_ID.test(runId) ? await deps.store.getStatus(runId) : null;
  // A run that ended waits for nothing, whatever its record still lists.
  if (!status || TERMINAL_STATUSES.includes(status)) return { items: [], total: 0 };
  const records = (await deps.waits.unansweredOfRun(runId)).filter((r) => !query.pipeline || r.pipeline === query.pipeline).sort((a, b) => a.created_at.localeCompare(b.created_at));
  return { items: records.slice(query.offset, query.offset + query.limit), total: records.length };
}

/** Nesting of `value`, counted without recursion and given up past `limit` (a deep value is refused, not walked). */
function depthPast(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [next, depth] = stack.pop() ?? [undefined, 0];
    if (next === null || typeof next !== 'object') continue;
    if (depth > limit) return true;
    for (const child of Object.values(next)) stack.push([child, depth + 1]);
  }
  return false;
}

/** Refuses an answer past its bounds before anything reads it further (an MCP call brings up to 32 MiB). */
function checkAnswerSize(value: unknown, what: string): void {
  if (jsonBytesWithin(value, MAX_ANSWER_BYTES) === undefined) throw new AnswerError({ refusal: 'invalid', code: 'answer_too_large', message: `${what} is larger than ${MAX_ANSWER_BYTES} bytes as JSON`, details: { limit: MAX_ANSWER_BYTES } });
  if (depthPast(value, MAX_ANSWER_DEPTH)) throw new AnswerError({ refusal: 'invalid', code: 'answer_too_deep', message: `${what} nests deeper than ${MAX_ANSWER_DEPTH} levels`, details: { limit: MAX_ANSWER_DEPTH } });
}

async function liveRun(deps: Pick<AnswerDeps, 'store'>, runId: string): Promise<void> {
  const status = RUN_ID.test(runId) ? await deps.store.getStatus(runId) : null;
  if (!status) throw new AnswerError({ refusal: 'not_found', code: 'run_not_found', message: `No run ${runId}`, details: { run_id: runId } });
  if (TERMINAL_STATUSES.includes(status)) throw new AnswerError({ refusal: 'conflict', code: 'run_finished', message: `Run ${runId} has already ${status}`, details: { status } });
}

const decidedAlready = (runId: string, callId: string) => new AnswerError({ refusal: 'conflict', code: 'approval_decided', message: `Call ${callId} of run ${runId} was decided already` });

/**
 * Approves or refuses a waiting call, for a key that may answer (`by`). `readRequest` parses the caller's body (its own boundary
 * error when it does not fit) and is called once the call is known to wait, so that an unknown
 * call is a 404 whatever the body. Edited arguments are checked against the tool's schema.
 */
export async function answerApproval(deps: AnswerDeps, target: { runId: string; callId: string; by: Answerer }, readRequest: () => ApprovalRequest): Promise<ApprovalAccepted> {
  const { runId, callId } = target;
  checkAnswerer(target.by);
  await liveRun(deps, runId);
  const plain = CALL_ID.test(callId);
  const record = plain ? await deps.waits.get(runId, 'approval', callId) : undefined;
  if (!record && plain && (await deps.waits.decision(runId, callId))) throw decidedAlready(runId, callId);
  if (!record) throw new AnswerError({ refusal: 'not_found', code: 'approval_not_found', message: `Run ${runId} waits for no approval of call ${callId}` });
  const request = readRequest();
  const edited = request.arguments;
  if (edited) checkAnswerSize(edited, 'The edited arguments');
  if (edited && record.parameters) {
    const problems = checker.problems(record.parameters, edited);
    if (problems.length > 0) {
      const details = { problems: problems.map((p) => ({ path: `arguments${p.startsWith('/') ? (p.split(' ')[0]?.replace(/\//g, '.') ?? '') : ''}`, message: p })) };
      throw new AnswerError({ refusal: 'invalid', code: 'invalid_arguments', message: `The edited arguments do not fit tool ${record.tool ?? callId}'s schema: ${problems.join('; ')}`, details });
    }
  }
  const decided = await deps.waits.decide(runId, callId, { approve: request.approve, ...(edited ? { arguments: edited } : {}), ...(request.note ? { note: request.note } : {}), at: new Date().toISOString() });
  if (!decided) {
    // Decided, and its job has not taken the answer yet: the process that recorded it may have died before waking the job.
    await wakeWaitingJob(deps.steps, record);
    throw decidedAlready(runId, callId);
  }
  crashPoint('approval.decided');
  await wakeWaitingJob(deps.steps, record);
  return { run_id: runId, call_id: callId, approve: request.approve, status: 'recorded' };
}

/**
 * Sends a signal to a run, checked against the schema of the wait step that takes it; kept when the
 * run has not reached the step yet. The first signal of a name stands (`duplicate` after).
 */
export async function answerSignal(deps: AnswerDeps, target: { runId: string; name: string; by: Answerer }, payload: unknown, idempotencyKey?: string): Promise<SignalAccepted> {
  const { runId, name } = target;
  checkAnswerer(target.by);
  checkAnswerSize(payload, 'The payload');
  await liveRun(deps, runId);
  if (!SIGNAL_NAME.test(name)) throw new AnswerError({ refusal: 'not_found', code: 'signal_not_found', message: `No signal ${name}` });
  const run = await deps.store.getRun(runId);
  const pipeline = run?.pipeline ? await deps.pipelines.pinned(run.pipeline.name, run.pipeline.version) : null;
  const step = pipeline ? [...pipeline.steps.values()].find((s) => s.target.kind === 'wait' && s.target.wait.signal === name) : undefined;
  if (!step || step.target.kind !== 'wait') throw new AnswerError({ refusal: 'not_found', code: 'signal_not_found', message: `No step of run ${runId} waits for signal ${name}` });
  const problems = step.target.wait.payloadProblems(payload);
  if (problems.length > 0) throw new AnswerError({ refusal: 'invalid', code: 'invalid_signal', message: `The payload does not fit signal ${name}'s schema: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`, details: { problems } });
  const key = idempotencyKey?.slice(0, IDEMPOTENCY_KEY_CHARS);
  const outcome = await deps.waits.signal(runId, name, { payload, at: new Date().toISOString(), ...(key ? { idempotency_key: key } : {}) });
  // A duplicate wakes the job too: the process that recorded the first may have died before waking it.
  crashPoint('signal.recorded');
  const record = await deps.waits.get(runId, 'signal', name);
  if (record) await wakeWaitingJob(deps.steps, record);
  return { run_id: runId, signal: name, status: outcome };
}
