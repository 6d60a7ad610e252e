/**
 * What decides which steps of a run may start: the statuses of stages and of map steps' branches,
 * read from the run's hash or taken from a completion's answer, and the steps' outputs as
 * expressions read them.
 */
import type { Redis } from 'ioredis';
import type { RunStatus } from '@switchyard/contracts';
import type { RunKeys } from './keys.js';
import { stageField } from './stage-records.js';

/** A run store's connection and keys (RunStore has both). */
export interface StepStateStore {
  redis: Redis;
  keys: RunKeys;
}

/** What a completion or skip answers: the run's counts, the fields asked to be watched, then the statuses of the branches that watched `<step>.branches` fields list. */
export interface RecordedStage {
  /** This write recorded the stage (false: it was recorded before, e.g. by a job taken over, or the run is gone). */
  applied: boolean;
  /** This write also moved the run from queued to running (its first stage, started from its job alone). */
  moved: boolean;
  completed: number;
  total: number;
  watched: (string | null)[];
}

export function countsOf(reply: unknown): RecordedStage {
  const [applied, completed, total, ...watched] = Array.isArray(reply) ? (reply as unknown[]) : [];
  return { applied: Number(applied) >= 1, moved: Number(applied) === 2, completed: Number(completed ?? 0), total: Number(total ?? 0), watched: watched.map((v) => (typeof v === 'string' ? v : null)) };
}

export type StepStates = { run: { status: RunStatus | null; completed: number; total: number }; steps: Map<string, { status: string | null; branches: { name: string; status: string | null }[] | null }> };

/** The run fields that tell whether steps needing `steps` may start (see readStepStates). */
const stateFieldsOf = new WeakMap<readonly string[], readonly string[]>();
export function stepStateFields(steps: readonly string[]): readonly string[] {
  let fields = stateFieldsOf.get(steps);
  // The same list (e.g. needsAfter's, kept per version) gives the same fields, made once.
  if (!fields) stateFieldsOf.set(steps, (fields = ['status', ...steps.flatMap((step) => [stageField(step, 'status'), `${step}.branches`])]));
  return fields;
}

/**
 * Statuses of stages and the branches of map steps, for deciding which steps may start.
 * `recorded`: a completion that watched `stepStateFields(steps)`, whose answer saves the read.
 */
export async function readStepStates(store: StepStateStore, runId: string, steps: readonly string[], recorded?: RecordedStage): Promise<StepStates> {
  const fields = stepStateFields(steps);
  const answered = recorded !== undefined && recorded.watched.length >= fields.length;
  const [completed, total, ...values] = answered ? [String(recorded.completed), String(recorded.total), ...recorded.watched.slice(0, fields.length)] : await store.redis.hmget(store.keys.run(runId), 'completed_stages', 'stage_count', ...fields);
  const branchNames = steps.map((_, i) => (values[2 + 2 * i] ? (JSON.parse(values[2 + 2 * i] as string) as string[]) : null));
  const wanted = branchNames.flatMap((names) => names ?? []);
  // The completion answered the branches' statuses after the watched fields.
  const branchStatuses = wanted.length === 0 ? [] : answered ? recorded.watched.slice(fields.length) : await store.redis.hmget(store.keys.run(runId), ...wanted.map((name) => stageField(name, 'status')));
  let at = 0;
  const result = new Map(
    steps.map((step, i) => {
      const names = branchNames[i] ?? null;
      const branches = names ? names.map((name) => ({ name, status: branchStatuses[at++] ?? null })) : null;
      return [step, { status: values[1 + 2 * i] ?? null, branches }] as const;
    }),
  );
  return { run: { status: (values[0] as RunStatus | null | undefined) ?? null, completed: Number(completed ?? 0), total: Number(total ?? 0) }, steps: result };
}

/** Every step's output as expressions read it (a map step's as the list of its branches'), skipped steps left out. */
export async function readStepOutputs(store: StepStateStore, runId: string, steps: readonly string[]): Promise<Record<string, unknown>> {
  const [outputs, branches] = await Promise.all([store.redis.hgetall(store.keys.outputs(runId)), steps.length > 0 ? store.redis.hmget(store.keys.run(runId), ...steps.map((s) => `${s}.branches`)) : Promise.resolve([])]);
  const read = (name: string): unknown => (outputs[name] === undefined ? undefined : (JSON.parse(outputs[name]) as unknown));
  const result: Record<string, unknown> = {};
  steps.forEach((step, i) => {
    const names = branches[i] ? (JSON.parse(branches[i] as string) as string[]) : null;
    const value = names ? names.map((name) => read(name) ?? null) : read(step);
    if (value !== undefined) result[step] = value;
  });
  return result;
}
