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
  /** Finished tasks' ids in the order they finished, so a sweep reads only the expired ones. */
  #finished: string[] = [];
  #swept = 0;
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
    const finish = (outcome: Partial<Task>) => {
      Object.assign(task, outcome, { finishedAt: Date.now() });
      this.#finished.push(task.id);
    };
    work(task.abort.signal).then(
      (result) => finish({ status: 'completed', result }),
      (error: unknown) => finish({ status: 'failed', error: toError(error) }),
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
    for (; this.#swept < this.#finished.length; this.#swept += 1) {
      const id = this.#finished[this.#swept] as string;
      const finishedAt = this.#tasks.get(id)?.finishedAt ?? 0;
      if (finishedAt >= cutoff) break;
      this.#tasks.delete(id);
    }
    // Drops the swept ids once they are the larger part, so the list stays as long as what it tracks.
    if (this.#swept > 1024 && this.#swept * 2 > this.#finished.length) {
      this.#finished = this.#finished.slice(this.#swept);
      this.#swept = 0;
    }
  }
}
