/**
 * Async tasks of one service, in memory. A task outlives the request that started it, so a
 * caller that crashed can poll it again by id. A finished task is kept for `retentionMs`, or for
 * `readRetentionMs` once its result has been read (the caller has it; a poll whose answer was lost
 * on the way may still ask again), and at most `maxFinished` finished tasks are kept, the oldest
 * dropped first: the memory of the tasks is bounded by the rate they finish at, not by the hour.
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
  readAt?: number;
  abort: AbortController;
}

export interface TaskStoreOptions {
  /** How long a finished task stays readable, in ms (default 1 h). */
  retentionMs?: number;
  /** How long a finished task stays readable once a poll has read its result, in ms (default 60 s). */
  readRetentionMs?: number;
  /** Finished tasks kept at most; past it the oldest finished are dropped (default 10,000). */
  maxFinished?: number;
  /** The clock (tests). */
  now?: () => number;
}

export const DEFAULT_TASK_RETENTION_MS = 3_600_000;
export const DEFAULT_TASK_READ_RETENTION_MS = 60_000;
export const DEFAULT_MAX_FINISHED_TASKS = 10_000;

/** Ids in the order they came, read from the front; the read part is dropped once it is the larger. */
class IdQueue {
  #ids: string[] = [];
  #head = 0;

  push(id: string): void {
    this.#ids.push(id);
  }

  get length(): number {
    return this.#ids.length - this.#head;
  }

  peek(): string | undefined {
    return this.#ids[this.#head];
  }

  shift(): void {
    this.#head += 1;
    if (this.#head > 1024 && this.#head * 2 > this.#ids.length) {
      this.#ids = this.#ids.slice(this.#head);
      this.#head = 0;
    }
  }
}

export class TaskStore {
  readonly #tasks = new Map<string, Task>();
  /** Finished tasks' ids in the order they finished (some may be gone already, read and swept). */
  readonly #finished = new IdQueue();
  /** Tasks' ids in the order their result was first read. */
  readonly #read = new IdQueue();
  #finishedCount = 0;
  readonly #retentionMs: number;
  readonly #readRetentionMs: number;
  readonly #maxFinished: number;
  readonly #now: () => number;

  /** @param options a number is `retentionMs` (the earlier form) */
  constructor(options: TaskStoreOptions | number = {}) {
    const settings = typeof options === 'number' ? { retentionMs: options } : options;
    this.#retentionMs = settings.retentionMs ?? DEFAULT_TASK_RETENTION_MS;
    this.#readRetentionMs = Math.min(settings.readRetentionMs ?? DEFAULT_TASK_READ_RETENTION_MS, this.#retentionMs);
    this.#maxFinished = settings.maxFinished ?? DEFAULT_MAX_FINISHED_TASKS;
    this.#now = settings.now ?? Date.now;
  }

  /** Tasks held: running, and finished but not yet dropped. */
  get size(): number {
    return this.#tasks.size;
  }

  /** Starts `work` in the background and returns the new task's id. */
  start(work: (signal: AbortSignal) => Promise<unknown>, toError: (error: unknown) => ErrorDetail): string {
    this.#sweep();
    const task: Task = { id: randomUUID(), status: 'processing', polls: 0, abort: new AbortController() };
    this.#tasks.set(task.id, task);
    const finish = (outcome: Partial<Task>) => {
      Object.assign(task, outcome, { finishedAt: this.#now() });
      // A task swept while running (never: only finished ones are) would not come back here.
      if (this.#tasks.get(task.id) !== task) return;
      this.#finished.push(task.id);
      this.#finishedCount += 1;
      this.#sweep();
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
    this.#sweep();
    const task = this.#tasks.get(id);
    if (!task) return undefined;
    task.polls += 1;
    if (task.status === 'processing' || task.polls <= pollsNeeded) return { task_id: id, status: 'processing' };
    if (task.readAt === undefined) {
      task.readAt = this.#now();
      this.#read.push(id);
    }
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

  #drop(id: string): void {
    const task = this.#tasks.get(id);
    if (task?.finishedAt === undefined) return;
    this.#tasks.delete(id);
    this.#finishedCount -= 1;
  }

  /** Drops what has expired: read tasks past their read retention, the oldest finished past the TTL or the count. */
  #sweep(): void {
    const now = this.#now();
    for (let id = this.#read.peek(); id !== undefined; id = this.#read.peek()) {
      const readAt = this.#tasks.get(id)?.readAt;
      if (readAt !== undefined && readAt + this.#readRetentionMs > now) break;
      this.#drop(id);
      this.#read.shift();
    }
    for (let id = this.#finished.peek(); id !== undefined; id = this.#finished.peek()) {
      const finishedAt = this.#tasks.get(id)?.finishedAt;
      if (finishedAt !== undefined && finishedAt + this.#retentionMs > now && this.#finishedCount <= this.#maxFinished) break;
      this.#drop(id);
      this.#finished.shift();
    }
  }
}
