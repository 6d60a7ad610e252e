/**
 * Worker processes of a test stack, each its own Node process (as in production), so a test can
 * SIGKILL one. Every process started is killed when the test file ends (see `killAll`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { Queue } from 'bullmq';
import { toolQueue } from '@switchyard/pipeline';
import { createRedisClient } from '@switchyard/redis';
import type { ToolServicesConfig } from '@switchyard/contracts';

/** What a worker process is started against: the test stack's Redis, keyspace and tool services. */
export interface WorkerTarget {
  redisUrl: string;
  prefix: string;
  toolConfig: ToolServicesConfig;
}

const workerMain = createRequire(import.meta.url).resolve('@switchyard/workers').replace(/index\.ts$/, 'main.ts');

export class WorkerProcesses {
  readonly #stack: () => WorkerTarget;
  readonly children: ChildProcess[] = [];

  /** `stack` is read when a process starts, so the pool may be made before the stack is. */
  constructor(stack: () => WorkerTarget) {
    this.#stack = stack;
  }

  /**
   * Starts a worker with a short lock (2 s) and stalled interval (0.5 s), and `extraEnv` on top.
   * @param pipeOutput read its output on `child.stdout` (default: ignored)
   */
  start(extraEnv: Record<string, string> = {}, pipeOutput = false): ChildProcess {
    const stack = this.#stack();
    const services = stack.toolConfig.services;
    const child = spawn(process.execPath, ['--import', 'tsx', workerMain], {
      env: {
        PATH: process.env.PATH ?? '',
        REDIS_URL: stack.redisUrl,
        QUEUE_PREFIX: stack.prefix,
        LOG_LEVEL: 'silent',
        LOCK_DURATION_MS: '2000',
        STALLED_INTERVAL_MS: '500',
        SEARCH_SERVICE_URL: services.search.url,
        OUTLINE_SERVICE_URL: services.outline.url,
        WRITING_SERVICE_URL: services.writing.url,
        EDITING_SERVICE_URL: services.editing.url,
        TOOL_SERVICE_API_KEY: stack.toolConfig.apiKey ?? '',
        ...extraEnv,
      },
      stdio: ['ignore', pipeOutput ? 'pipe' : 'ignore', 'inherit'],
    });
    this.children.push(child);
    return child;
  }

  /**
   * Starts a worker as `start` does and resolves once it listens on the search step queue, so a
   * test's own time limits do not include the start of a Node process (slow on a busy machine).
   */
  async startListening(extraEnv: Record<string, string> = {}): Promise<ChildProcess> {
    const stack = this.#stack();
    const connection = createRedisClient(stack.redisUrl);
    const queue = new Queue(toolQueue('search'), { connection, prefix: stack.prefix });
    try {
      const before = await queue.getWorkersCount();
      const child = this.start(extraEnv);
      await waitFor(() => queue.getWorkersCount(), (count) => count > before || child.exitCode !== null, 'the worker process listens', 120_000);
      if (child.exitCode !== null) throw new Error(`the worker process exited with ${child.exitCode} before it listened`);
      return child;
    } finally {
      await queue.close();
      await connection.quit();
    }
  }

  /** SIGKILLs a worker and waits until it has exited. */
  static kill(child: ChildProcess): Promise<void> {
    return sigkill(child);
  }

  async killAll(): Promise<void> {
    await Promise.all(this.children.map((child) => WorkerProcesses.kill(child)));
  }
}

/** SIGKILLs a child process and waits until it has exited (at once when it had). */
export async function sigkill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}

/** Polls `read` until `ok` holds; fails after `timeoutMs` with what it last read. */
export async function waitFor<T>(read: () => Promise<T>, ok: (value: T) => boolean, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
