/**
 * Task groups and their phases in Redis. Reads are plain; every change goes through one of the
 * scripts in scripts.ts, so checks and writes happen in one step across processes.
 */
import { randomUUID } from 'node:crypto';
import type { ChainableCommander, Redis } from 'ioredis';
import { z } from 'zod';
import { KeyedPipeline } from '@switchyard/redis';
import { PhaseSchema, TASK_STATUSES, TaskGroupSchema, type Phase, type PhaseType, type TaskGroup, type TaskStatus } from './domain.js';
import type { SupervisorKeys } from './keys.js';
import { ADVANCE_SCRIPT, REPORT_SCRIPT, TRANSITION_SCRIPT } from './scripts.js';

export type TransitionAction = 'start' | 'continue' | 'suspend' | 'finish' | 'cancel';

export type TransitionResult =
  | { outcome: 'ok'; previous: TaskStatus; switchedTo?: string | undefined }
  | { outcome: 'missing' }
  | { outcome: 'already' | 'invalid' | 'not_ready'; status: TaskStatus }
  | { outcome: 'conflict'; status: TaskStatus; inProgressId: string };

export type AdvanceResult = { outcome: 'ok'; phase: Phase } | { outcome: 'stale' } | { outcome: 'invalid'; status: string };

export type ReportResult = { outcome: 'ok' } | { outcome: 'task_status' | 'phase_status'; status: string } | { outcome: 'not_current' };

export interface NewTaskGroup {
  title: string;
  goal: string;
  sop_step_identifier: string;
}

const ScriptReply = z.tuple([z.string(), z.string()]).rest(z.string());
const Status = z.enum(TASK_STATUSES);

export class TaskStore {
  readonly #redis: Redis;
  readonly #keys: SupervisorKeys;

  constructor(redis: Redis, keys: SupervisorKeys) {
    this.#redis = redis;
    this.#keys = keys;
  }

  /** Queues the writes of a new PENDING task group on `multi` (so a project and its first tasks are written together). */
  queueAdd(multi: ChainableCommander, projectId: string, input: NewTaskGroup, now: string, sequence: number): TaskGroup {
    const task: TaskGroup = { task_id: randomUUID(), project_id: projectId, ...input, status: 'PENDING', created_at: now, phase_count: 0 };
    multi.hset(this.#keys.task(task.task_id), { ...task }).zadd(this.#keys.tasks(projectId), sequence, task.task_id);
    return task;
  }

  async nextSequences(count: number): Promise<number> {
    const last = await this.#redis.incrby(this.#keys.sequence, count);
    return last - count + 1;
  }

  async add(projectId: string, input: NewTaskGroup, now: string): Promise<TaskGroup> {
    const multi = this.#redis.multi();
    const task = this.queueAdd(multi, projectId, input, now, await this.nextSequences(1));
    await multi.exec();
    return task;
  }

  async get(taskId: string): Promise<TaskGroup | undefined> {
    const hash = await this.#redis.hgetall(this.#keys.task(taskId));
    return Object.keys(hash).length === 0 ? undefined : TaskGroupSchema.parse(hash);
  }

  /** The project's task groups, oldest first. */
  async list(projectId: string): Promise<TaskGroup[]> {
    const ids = await this.#redis.zrange(this.#keys.tasks(projectId), 0, -1);
    const pipeline = new KeyedPipeline(this.#redis);
    for (const id of ids) pipeline.on(this.#keys.task(id)).hgetall(this.#keys.task(id));
    return (await pipeline.execOrThrow()).map((hash) => hash as Record<string, string>).filter((hash) => Object.keys(hash).length > 0).map((hash) => TaskGroupSchema.parse(hash));
  }

  async inProgress(projectId: string): Promise<TaskGroup | undefined> {
    const id = await this.#redis.get(this.#keys.inProgress(projectId));
    return id ? this.get(id) : undefined;
  }

  async transition(task: TaskGroup, action: TransitionAction, now: string, reason = ''): Promise<TransitionResult> {
    const keys = [this.#keys.task(task.task_id), this.#keys.inProgress(task.project_id)];
    if (action === 'cancel') {
      // Candidates only: the script takes the first that is still PENDING when it runs.
      const pending = (await this.list(task.project_id)).filter((t) => t.status === 'PENDING' && t.task_id !== task.task_id);
      keys.push(...pending.map((t) => this.#keys.task(t.task_id)));
    }
    const reply = ScriptReply.parse(await this.#redis.eval(TRANSITION_SCRIPT, keys.length, ...keys, action, task.task_id, now, reason));
    const [outcome, status, other] = reply;
    switch (outcome) {
      case 'missing':
        return { outcome };
      case 'ok':
        return { outcome, previous: Status.parse(status), switchedTo: other || undefined };
      case 'conflict':
        return { outcome, status: Status.parse(status), inProgressId: other ?? '' };
      case 'already':
      case 'invalid':
      case 'not_ready':
        return { outcome, status: Status.parse(status) };
      default:
        throw new Error(`Unexpected transition outcome '${outcome}'`);
    }
  }

  async phase(phaseId: string): Promise<Phase | undefined> {
    const hash = await this.#redis.hgetall(this.#keys.phase(phaseId));
    return Object.keys(hash).length === 0 ? undefined : PhaseSchema.parse(hash);
  }

  async phases(taskId: string): Promise<Phase[]> {
    const ids = await this.#redis.lrange(this.#keys.taskPhases(taskId), 0, -1);
    const phases = await Promise.all(ids.map((id) => this.phase(id)));
    return phases.filter((phase): phase is Phase => phase !== undefined);
  }

  /** Opens a phase after `seenPhaseId` (undefined: the first). */
  async advance(task: TaskGroup, seenPhaseId: string | undefined, type: PhaseType, title: string, now: string): Promise<AdvanceResult> {
    const id = randomUUID();
    const keys = [this.#keys.task(task.task_id), this.#keys.taskPhases(task.task_id), this.#keys.phase(id)];
    const [outcome, detail] = ScriptReply.parse(await this.#redis.eval(ADVANCE_SCRIPT, keys.length, ...keys, seenPhaseId ?? '', id, type, title, now, task.task_id));
    if (outcome === 'stale') return { outcome };
    if (outcome === 'invalid') return { outcome, status: detail };
    return { outcome: 'ok', phase: { id, task_id: task.task_id, type, title, status: 'IN_PROGRESS', order: Number(detail), created_at: now } };
  }

  /** Completes the phase being worked on; `passed` only for a VALIDATION phase. */
  async report(phase: Phase, now: string, result: unknown, passed?: boolean): Promise<ReportResult> {
    const keys = [this.#keys.task(phase.task_id), this.#keys.phase(phase.id)];
    const flag = passed === undefined ? '' : passed ? '1' : '0';
    const [outcome, status] = ScriptReply.parse(await this.#redis.eval(REPORT_SCRIPT, keys.length, ...keys, phase.id, now, JSON.stringify(result ?? null), flag));
    if (outcome === 'ok' || outcome === 'not_current') return { outcome };
    if (outcome === 'task_status' || outcome === 'phase_status') return { outcome, status };
    throw new Error(`Unexpected report outcome '${outcome}'`);
  }
}
