/**
 * Async tasks of one service, in memory. A task outlives the request that started it, so a
 * caller that crashed can poll it again by id; finished tasks are kept for `retentionMs`.
 */
import { randomUUID } from 'node:crypto';
import type { ErrorDetail, TaskStatus } from '@switchyard/contracts';

interface Task {
  id: string;
  status: 'processing' | 'completed' | 'failed';
  result?: unknown;
  error?: ErrorDetail;
  polls: number;
  finishedAt?: number;
  abort: AbortController;
}

export class TaskStore {
  readonly #tasks = new Map<string, Task>();
  readonly #retentionMs: number;

  /** @param retentionMs how long finished tasks stay readable (default 1 h) */
  constructor(retentionMs = 3_600_000) {
    this.#retentionMs = retentionMs;
  }

  /** Starts `work` in the background and returns the new task's id. */
  start(work: (signal: AbortSignal) => Promise<unknown>, toError: (error: unknown) => ErrorDetail): string {
    this.#sweep();
    const task: Task = { id: randomUUID(), status: 'processing', polls: 0, abort: new AbortController() };
    this.#tasks.set(task.id, task);
    work(task.abort.signal).then(
      (result) => Object.assign(task, { status: 'completed', result, finishedAt: Date.now() }),
      (error: unknown) => Object.assign(task, { status: 'failed', error: toError(error), finishedAt: Date.now() }),
    );
    return task.id;
  }

  /**
   * The task as a poll sees it. A finished task still reads `processing` until it has been
   * polled `pollsNeeded` times, which is how tests get a slow task without a slow machine.
   */
  poll(id: string, pollsNeeded: number): TaskStatus | undefined {
    const task = this.#tasks.get(id);
    if (!task) return undefined;
    task.polls += 1;
    if (task.status === 'processing' || task.polls <= pollsNeeded) return { task_id: id, status: 'processing' };
    if (task.status === 'completed') return { task_id: id, status: 'completed', result: task.result };
    return { task_id: id, status: 'failed', error: task.error };
  }

  /** Aborts a task; false when there is no such task. */
  cancel(id: string): boolean {
    const task = this.#tasks.get(id);
    if (!task) return false;
    task.abort.abort();
    return true;
  }

  #sweep(): void {
    const cutoff = Date.now() - this.#retentionMs;
    for (const [id, task] of this.#tasks) if (task.finishedAt !== undefined && task.finishedAt < cutoff) this.#tasks.delete(id);
  }
}
