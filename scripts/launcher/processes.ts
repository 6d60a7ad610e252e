/**
 * The local launcher's child processes: each service runs as a process of its own (as it would
 * in production), its output in `.data/logs/<name>.log`, stopped with SIGTERM and awaited.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, mkdirSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '@switchyard/redis';

export interface Child {
  name: string;
  process: ChildProcess;
  logFile: string;
}

export const LOG_DIR = path.join(REPO_ROOT, '.data', 'logs');

/** Starts `node --import tsx <entry>` with `env` on top of PATH alone (no inherited secrets). */
export function startService(options: { name: string; entry: string; env: Record<string, string> }): Child {
  mkdirSync(LOG_DIR, { recursive: true });
  const logFile = path.join(LOG_DIR, `${options.name}.log`);
  const log = createWriteStream(logFile, { flags: 'a' });
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, options.entry)], {
    cwd: REPO_ROOT,
     
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.pipe(log, { end: false });
  child.stderr?.pipe(log, { end: false });
  child.once('exit', () => log.end());
  return { name: options.name, process: child, logFile };
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves when the process has exited. */
export async function stopService(child: Child, graceMs = 30_000): Promise<void> {
  const proc = child.process;
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = once(proc, 'exit');
  proc.kill('SIGTERM');
  const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** Polls `url` until it answers 2xx; fails when the child exits first or `timeoutMs` passes. */
export async function waitUntilHealthy(options: { url: string; child: Child; timeoutMs?: number; headers?: Record<string, string> }): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  for (;;) {
    if (options.child.process.exitCode !== null) throw new Error(`${options.child.name} exited with code ${options.child.process.exitCode}; see ${options.child.logFile}`);
    const ok = await fetch(options.url, { headers: options.headers, signal: AbortSignal.timeout(2000) }).then(
      (res) => (void res.body?.cancel(), res.ok),
      () => false,
    );
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`${options.child.name} did not become healthy at ${options.url}; see ${options.child.logFile}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
