/**
 * Running the switchyard command in tests as a user runs it: the bin file, in a process of its
 * own, with SWITCHYARD_URL and SWITCHYARD_KEY pointing at a test stack.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { CHECKOUT_ROOT } from './env.js';

export const BIN = path.join(CHECKOUT_ROOT, 'bin', 'switchyard.mjs');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment without any SWITCHYARD_ variable of the machine's, plus `vars`. */
export function cliEnv(vars: Record<string, string>): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('SWITCHYARD_')));
  return { ...env, ...vars };
}

/** Runs `command args…` (default: node on the bin file) to its end; fails a test that hangs past `timeoutMs`. */
export function runCli(args: readonly string[], options: { env: NodeJS.ProcessEnv; cwd?: string; command?: string[]; timeoutMs?: number }): Promise<CliResult> {
  const [command, ...prefix] = options.command ?? [process.execPath, BIN];
  return new Promise((resolve, reject) => {
    const child = spawn(command as string, [...prefix, ...args], { cwd: options.cwd ?? CHECKOUT_ROOT, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`switchyard ${args.join(' ')} still running after ${options.timeoutMs ?? 60_000} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
