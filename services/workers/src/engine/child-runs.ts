/**
 * Child runs: a run of a registered pipeline started by a step of another run (a child pipeline
 * step, child-step.ts) or by an agent's call of a pipeline tool (agent/agent-call.ts). Its id is
 * derived from what started it, so a job made again after a crash finds the run it started. The
 * starting job does not hold a worker while the child runs: it goes back to the delayed set and
 * looks again, less often as the child takes longer. Parent and child name each other in their
 * records (child-links.ts), and the child carries its depth, bounded by MAX_CHILD_DEPTH.
 */
import { createHash } from 'node:crypto';
import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import { TERMINAL_STATUSES, type RunError } from '@switchyard/contracts';
import { admitDescendant, cancelRun, checkInputSize, checkRunInput, ChildBudgetError, childFlow, crashPoint, FlowTag, InputError, MAX_CHILD_DEPTH, newPipelineRun, releaseWaits, rootJobs, RunLimitError, RunWaits, TooManyRunsError, type CompiledPipeline, type PipelineQueues, type PipelineStore, type RunStore, type StepJob } from '@switchyard/pipeline';

export interface ChildRunDeps {
  store: RunStore;
  pipelines: PipelineStore;
  queues: Pick<PipelineQueues, 'steps'>;
}

/** First and longest wait between looks at a child run (ms). */
export const CHILD_POLL_MS = { first: 250, max: 5000 } as const;

/** A child run's id: the same every time for the same parts (run, stage, and an agent's turn and call). */
export function childRunId(...parts: readonly (string | number)[]): string {
  return `run_${createHash('sha256').update(parts.join('/')).digest('hex').slice(0, 32)}`;
}

/** A child run that could not start, or ended other than completed; `code` and `details` say which and why. */
export class ChildRunFailedError extends UnrecoverableError {
  override name = 'ChildRunFailedError';
  readonly code: string;
  readonly details: Record<string, unknown>;
  constructor(options: { code: string; message: string; details?: Record<string, unknown> }) {
    super(options.message);
    this.code = options.code;
    this.details = options.details ?? {};
  }
}

export interface ChildRunRequest {
  job: Job;
  token: string | undefined;
  data: StepJob;
  /** The run and stage starting the child (with an agent's call, the turn and index). */
  parent: { runId: string; stage: string; call?: { turn: number; index: number } | undefined };
  childId: string;
  /** The field of the parent's record that names the child (childRunField). */
  linkField: string;
  pipeline: { name: string; version?: number | undefined };
  /** The child's input, asked for only when the child is started. */
  input: () => Promise<unknown>;
  /** Called before the job goes to the delayed set for the first time (the stage's `running`). */
  onWait?: (() => void) | undefined;
}

/** The child's result once it has completed; until then the job waits in the delayed set (DelayedError). */
export async function awaitChildRun(deps: ChildRunDeps, request: ChildRunRequest): Promise<{ childId: string; result: unknown }> {
  const { childId } = request;
  let status = await deps.store.getStatus(childId);
  if (!status) {
    await startChildRun(deps, request);
    status = 'queued';
  } else if (request.data.child_wait_since === undefined && status === 'queued') {
    // This job wrote the child's record and died before it first waited: its start may have
    // stopped anywhere after the record (before its index entries, its parent, its first steps).
    await resumeChildStart(deps, request);
  }
  if (TERMINAL_STATUSES.includes(status)) {
    const child = await deps.store.getRun(childId);
    if (status === 'completed') return { childId, result: child?.result ?? null };
    const error: RunError | null = child?.error ?? null;
    throw new ChildRunFailedError({ code: 'child_run_failed', message: `child run ${childId} of pipeline ${request.pipeline.name} ${status}: ${error ? `${error.code}: ${error.message}` : 'no reason given'}`, details: { child_run: childId, status, error } });
  }
  return waitForChild(request);
}

/** Cancels the child of a parent that has ended, when it is still going. */
export async function cancelChildRun(deps: Pick<ChildRunDeps, 'store' | 'queues'>, childId: string): Promise<void> {
  const status = await deps.store.getStatus(childId);
  if (!status || TERMINAL_STATUSES.includes(status)) return;
  // As a cancel through the API: what the child waited for leaves the inbox, and its parked jobs
  // wake to find it ended (an approval's job would otherwise sit out its 30-day park).
  const waits = new RunWaits({ redis: deps.store.redis, keys: deps.store.keys, prefix: deps.store.prefix });
  await cancelRun({ store: deps.store, releaseWaits: (id) => releaseWaits({ waits, steps: deps.queues.steps }, id) }, childId);
}

async function startChildRun(deps: ChildRunDeps, request: ChildRunRequest): Promise<void> {
  const { store } = deps;
  const { parent, childId, pipeline: wanted } = request;
  const parentKey = store.keys.run(parent.runId);
  // One read of the parent: its depth (the child's is one more), its tree's root and its key.
  const [parentDepth, parentRoot, owner] = await store.redis.hmget(parentKey, 'depth', 'root', 'owner');
  const depth = depthBelow(parentDepth, request);
  const pipeline = await deps.pipelines.compiled(wanted.name, wanted.version);
  if (!pipeline) throw new ChildRunFailedError({ code: 'pipeline_missing', message: `no pipeline ${wanted.name}${wanted.version ? ` version ${wanted.version}` : ''} is registered` });
  const input = await request.input();
  let run: Awaited<ReturnType<typeof newPipelineRun>>;
  try {
    checkInputSize(input, store.limits);
    checkRunInput(pipeline, input);
    run = await newPipelineRun(pipeline, input, childId, store.limits);
    // A child run is its parent's work: its priority, its share, its parent's run concurrency
    // key (held already by the parent: the child passes no gate of its parent's).
    if (request.data.flow) run.flow = await childFlow(pipeline, input, childId, request.data.flow);
  } catch (error) {
    // An input the pipeline refuses cannot pass by retrying: the step (or the model) reads why.
    if (error instanceof InputError || error instanceof RunLimitError) throw new ChildRunFailedError({ code: 'child_input_refused', message: `pipeline ${wanted.name} refused the input: ${error.message}`, details: { pipeline: wanted.name } });
    throw error;
  }
  // The whole tree is bounded (its root counts every child at every depth), and the child is held
  // by the key that holds its parent: neither bound harms a run already going, only this start.
  const root = parentRoot || parent.runId;
  try {
    await admitDescendant(store, { root, childId, most: store.limits.descendantsPerRun });
    // Named on the parent before it exists, so that cancelling the parent always finds it.
    await store.redis.hset(parentKey, request.linkField, childId);
    crashPoint('child.linked');
    // Its depth and root are in its record from its first write (its steps read them to start theirs).
    await store.createRun({ ...run, ...(owner ? { owner } : {}), lineage: { parent: { run_id: parent.runId, stage: parent.stage, ...(parent.call ? { call: parent.call } : {}) }, depth, root } });
    crashPoint('child.created');
  } catch (error) {
    if (error instanceof ChildBudgetError || error instanceof TooManyRunsError) throw new ChildRunFailedError({ code: error.code, message: error.message, details: error.details });
    throw error;
  }
  await launchChild(deps, request, pipeline, depth, run.flow);
}

/** The child's depth: one below its parent's (0 for a run nobody started); refused past MAX_CHILD_DEPTH. */
async function childDepth(deps: ChildRunDeps, request: ChildRunRequest): Promise<number> {
  return depthBelow(await deps.store.redis.hget(deps.store.keys.run(request.parent.runId), 'depth'), request);
}

function depthBelow(parentDepth: string | null | undefined, request: ChildRunRequest): number {
  const depth = Number(parentDepth ?? 0) + 1;
  if (depth > MAX_CHILD_DEPTH) throw new ChildRunFailedError({ code: 'child_depth_exceeded', message: `pipeline ${request.pipeline.name} would start a child run ${depth} levels deep; child runs nest at most ${MAX_CHILD_DEPTH} levels (a pipeline that calls itself, directly or through others?)`, details: { depth, max_depth: MAX_CHILD_DEPTH } });
  return depth;
}

/**
 * What follows the child's record: its parent and depth (in the record already since its first
 * write; written again for a record made before), then its first steps, then a look at the
 * parent. Each write is idempotent (the same fields, job ids), so a job that died anywhere in
 * here does it all again (resumeChildStart).
 */
async function launchChild(deps: ChildRunDeps, request: ChildRunRequest, pipeline: CompiledPipeline, depth: number, flow: FlowTag | undefined): Promise<void> {
  const { store } = deps;
  const { parent, childId } = request;
  await store.redis.hset(store.keys.run(childId), 'parent', JSON.stringify({ run_id: parent.runId, stage: parent.stage, ...(parent.call ? { call: parent.call } : {}) }), 'depth', String(depth));
  crashPoint('child.parented');
  await deps.queues.steps.add(await rootJobs(pipeline, childId, undefined, store.limits, flow));
  crashPoint('child.queued');
  // A parent cancelled meanwhile has looked for its children before this one was there.
  const parentStatus = await store.getStatus(parent.runId);
  if (!parentStatus || TERMINAL_STATUSES.includes(parentStatus)) {
    await cancelChildRun(deps, childId);
    throw new UnrecoverableError(`run ${parent.runId} is ${parentStatus ?? 'gone'}`);
  }
}

/**
 * A child whose record exists but which may never have been started: listed again (its index
 * entries are a second round trip), given its parent and depth, and its first steps added (job
 * ids make each a no-op when it was done). Only for a child still `queued`: once a step of it
 * has started, its first steps were added.
 */
async function resumeChildStart(deps: ChildRunDeps, request: ChildRunRequest): Promise<void> {
  const { store } = deps;
  const [name, version, flowText] = await store.redis.hmget(store.keys.run(request.childId), 'pipeline', 'pipeline_version', 'flow');
  const pipeline = name ? await deps.pipelines.pinned(name, Number(version)) : null;
  if (!pipeline) throw new ChildRunFailedError({ code: 'pipeline_missing', message: `no pipeline ${name ?? request.pipeline.name} version ${version ?? '?'} is registered for child run ${request.childId}` });
  await store.ensureIndexed(request.childId);
  await launchChild(deps, request, pipeline, await childDepth(deps, request), flowText ? FlowTag.parse(JSON.parse(flowText)) : undefined);
}

async function waitForChild(request: ChildRunRequest): Promise<never> {
  const { job, data } = request;
  if (!request.token) throw new Error('a child run is awaited by a job with a lock token');
  const since = data.child_wait_since ?? Date.now();
  if (data.child_wait_since === undefined) {
    request.onWait?.();
    await job.updateData({ ...data, child_wait_since: since });
  }
  const wait = Math.min(CHILD_POLL_MS.max, Math.max(CHILD_POLL_MS.first, (Date.now() - since) / 4));
  await job.moveToDelayed(Date.now() + wait, request.token);
  throw new DelayedError();
}
