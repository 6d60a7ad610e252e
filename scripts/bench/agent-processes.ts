/**
 * The agent bench's other processes, each measured apart from /proc: the orchestrator (its
 * main.ts, as deployed) and the stub model. Both run through tsx and say their URL on stdout.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from '@switchyard/redis';
import { readProcess } from './realistic-sampling.js';

const START_TIMEOUT_MS = 120_000;

export interface BenchChild {
  name: string;
  process: ChildProcess;
  url: string;
  cpuSeconds(): number;
  /** Writes a line to its stdin and resolves with the next line it prints that parses as JSON. */
  ask<T>(line: string): Promise<T>;
  stop(): Promise<void>;
}

/**
 * Starts `script` (a path under the repository) with tsx and resolves once a line of its stdout
 * holds `"url":"http…"`. Its stderr goes to ours.
 */
export async function startBenchChild(options: { name: string; script: string; args?: readonly string[]; env?: Record<string, string>; nodeOptions?: readonly string[] }): Promise<BenchChild> {
  const child = spawn(process.execPath, [...(options.nodeOptions ?? []), '--import', import.meta.resolve('tsx'), path.join(REPO_ROOT, options.script), ...(options.args ?? [])], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', ...options.env },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const waiting: ((line: string) => boolean)[] = [];
  let partial = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      const taker = waiting.findIndex((take) => take(line));
      if (taker >= 0) waiting.splice(taker, 1);
    }
  });
  const exited = new Promise<never>((_, reject) => child.once('exit', (code, signal) => reject(new Error(`${options.name} exited (${code ?? signal})`))));
  exited.catch(() => undefined);
  const nextLine = <T>(parse: (line: string) => T | undefined, timeoutMs: number): Promise<T> =>
    Promise.race([
      exited,
      new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${options.name} said nothing expected within ${timeoutMs} ms`)), timeoutMs);
        waiting.push((line) => {
          const value = parse(line);
          if (value === undefined) return false;
          clearTimeout(timer);
          resolve(value);
          return true;
        });
      }),
    ]);
  let url: string;
  try {
    url = await nextLine((line) => /"url":"(http:[^"]+)"/.exec(line)?.[1], START_TIMEOUT_MS);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return {
    name: options.name,
    process: child,
    url,
    cpuSeconds: () => readProcess(child.pid as number).cpuS,
    ask<T>(line: string) {
      const answer = nextLine((text) => {
        try {
          return JSON.parse(text) as T;
        } catch {
          return undefined;
        }
      }, 10_000);
      child.stdin?.write(`${line}\n`);
      return answer;
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await gone;
      clearTimeout(timer);
    },
  };
}
