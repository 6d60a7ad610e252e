/**
 * The launcher's child processes: each service runs as a process of its own (as in production),
 * its output in `.data/logs/<name>.log` (rewritten each launch), stopped with SIGTERM and awaited.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '@switchyard/redis';
import { nodeArguments, type Runtime } from './runtime.js';

export const LOG_DIR = path.join(REPO_ROOT, '.data', 'logs');
/** What a child keeps of the launcher's own environment; everything else is given explicitly. */
const BASE_ENV = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ', 'NODE_EXTRA_CA_CERTS', 'NODE_OPTIONS'];

export interface Child {
  name: string;
  process: ChildProcess;
  logFile: string;
  /** Stopped after the children of higher tiers (tool services 0, the rest 1). */
  tier: number;
  /** Resolves when the process has exited and its log is flushed. */
  closed: Promise<void>;
}

/**
 * @param options.entry the service's main.ts, from the repository root
 * @param options.runtime its sources through tsx, or its compiled JavaScript (default tsx)
 * @param options.appendLog keep the log of an earlier process of the same name (a restart)
 */
export function startService(options: { name: string; entry: string; env: Record<string, string>; tier: number; runtime?: Runtime; appendLog?: boolean }): Child {
  mkdirSync(LOG_DIR, { recursive: true });
  const logFile = path.join(LOG_DIR, `${options.name}.log`);
  const log = createWriteStream(logFile, { flags: options.appendLog ? 'a' : 'w' });
  const inherited = Object.fromEntries(BASE_ENV.flatMap((name) => (process.env[name] ? [[name, process.env[name]]] : [])));
  const child = spawn(process.execPath, nodeArguments({ entry: options.entry, runtime: options.runtime ?? 'tsx' }), {
    cwd: REPO_ROOT,
    env: { ...inherited, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.pipe(log, { end: false });
  child.stderr?.pipe(log, { end: false });
  // 'close' comes after both pipes have drained, so the log holds the last words of the child.
  const closed = once(child, 'close').then(() => new Promise<void>((resolve) => log.end(resolve)));
  return { name: options.name, process: child, logFile, tier: options.tier, closed };
}

function running(child: Child): boolean {
  return child.process.exitCode === null && child.process.signalCode === null;
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves when the process has exited. */
export async function stopService(child: Child, graceMs = 30_000): Promise<void> {
  if (running(child)) {
    child.process.kill('SIGTERM');
    const timer = setTimeout(() => child.process.kill('SIGKILL'), graceMs);
    await child.closed;
    clearTimeout(timer);
  }
  await child.closed;
}

/** The last `lines` lines of a child's log, for an error message. */
export function logTail(child: Child, lines = 8): string {
  try {
    return readFileSync(child.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/** Every child of this launch: stopped together, and watched for one that dies on its own. */
export class Children {
  readonly all: Child[] = [];
  #stopping = false;
  #onUnexpectedExit: ((child: Child, code: number | null, signal: string | null) => void) | undefined;

  add(child: Child): Child {
    this.all.push(child);
    child.process.once('exit', (code, signal) => {
      if (!this.#stopping) this.#onUnexpectedExit?.(child, code, signal);
    });
    return child;
  }

  /**
   * Adds a child that is started again when it dies on its own, after a backoff that doubles
   * from `baseDelayMs` (default 1000) to 30 s while it keeps dying and starts over once it has
   * lived a minute. `onRestart` is told each time, before the wait.
   */
  addRestartable(options: { start: (restarted: boolean) => Child; onRestart: (notice: { dead: Child; code: number | null; signal: string | null; delayMs: number }) => void; baseDelayMs?: number }): Child {
    const base = options.baseDelayMs ?? 1000;
    let failures = 0;
    const follow = (child: Child) => {
      const startedAt = Date.now();
      this.all.push(child);
      child.process.once('exit', (code, signal) => {
        if (this.#stopping) return;
        failures = Date.now() - startedAt > 60_000 ? 0 : failures + 1;
        const delayMs = Math.min(30_000, base * 2 ** Math.max(0, failures - 1));
        options.onRestart({ dead: child, code, signal, delayMs });
        setTimeout(() => {
          if (this.#stopping) return;
          this.all.splice(this.all.indexOf(child), 1);
          follow(options.start(true));
        }, delayMs).unref();
      });
    };
    const first = options.start(false);
    follow(first);
    return first;
  }

  /** From now on, a child that exits before stopAll() is reported here. */
  watch(onUnexpectedExit: (child: Child, code: number | null, signal: string | null) => void): void {
    this.#onUnexpectedExit = onUnexpectedExit;
  }

  /** Stops the highest tier first (all of a tier at once), down to tier 0. */
  async stopAll(): Promise<void> {
    this.#stopping = true;
    const tiers = [...new Set(this.all.map((c) => c.tier))].sort((a, b) => b - a);
    for (const tier of tiers) await Promise.all(this.all.filter((c) => c.tier === tier).map((c) => stopService(c)));
  }
}

/**
 * Polls `url` until it answers 200; fails as soon as the child exits, or after `timeoutMs`
 * with the last answer it had.
 */
export async function waitUntilHealthy(options: { url: string; child: Child; timeoutMs?: number }): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  let last = 'no answer';
  for (;;) {
    if (!running(options.child)) throw new ChildFailed(options.child, `exited with code ${options.child.process.exitCode ?? options.child.process.signalCode}`);
    const status = await fetch(options.url, { signal: AbortSignal.timeout(2000) }).then(
      async (res) => (res.status === 200 ? 200 : `HTTP ${res.status} ${(await res.text()).slice(0, 300)}`),
      (error: unknown) => `${error instanceof Error ? error.message : String(error)}`,
    );
    if (status === 200) return;
    last = status;
    if (Date.now() > deadline) throw new ChildFailed(options.child, `did not answer 200 at ${options.url} within ${options.timeoutMs ?? 60_000} ms (last: ${last})`);
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}

export class ChildFailed extends Error {
  override name = 'ChildFailed';
  constructor(
    readonly child: Child,
    reason: string,
  ) {
    super(`${child.name} ${reason}; its log: ${path.relative(process.cwd(), child.logFile)}`);
  }
}
