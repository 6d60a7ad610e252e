/**
 * Worker processes of a test stack, each its own Node process (as in production), so a test can
 * SIGKILL one. Every process started is killed when the test file ends (see `killAll`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import type { TestStack } from './stack.js';

const workerMain = createRequire(import.meta.url).resolve('@switchyard/workers').replace(/index\.ts$/, 'main.ts');

export class WorkerProcesses {
  readonly #stack: () => TestStack;
  readonly children: ChildProcess[] = [];

  /** `stack` is read when a process starts, so the pool may be made before the stack is. */
  constructor(stack: () => TestStack) {
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

  /** SIGKILLs a worker and waits until it has exited. */
  static async kill(child: ChildProcess): Promise<void> {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
  }

  async killAll(): Promise<void> {
    await Promise.all(this.children.map((child) => WorkerProcesses.kill(child)));
  }
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
