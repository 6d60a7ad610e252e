/**
 * The switchyard command: `main` runs one command line and answers its exit code, never exiting
 * itself (tests call it in-process); `runAsProgram`, which bin/switchyard.mjs calls, exits with it.
 */
import { CommanderError } from 'commander';
import { ApiError } from '@switchyard/client';
import { createContext } from './context.js';
import { readCliEnv } from './env.js';
import { describeFailure, EXIT } from './errors.js';
import type { Streams } from './output.js';
import { buildProgram } from './program.js';

export interface MainOptions {
  /** The environment (default: the process's). */
  env?: Record<string, string | undefined>;
  streams?: Streams;
  /** Aborting it stops the command (Ctrl-C). */
  signal?: AbortSignal;
  /** The local key file (default: .data/api-key in this checkout). */
  keyFile?: string;
}

export async function main(argv: readonly string[], options: MainOptions = {}): Promise<number> {
  const streams = options.streams ?? { out: process.stdout, err: process.stderr };
  const fail = (line: string, code: number) => {
    streams.err.write(`switchyard: ${line}\n`);
    return code;
  };
  let env;
  try {
    env = readCliEnv(options.env, options.keyFile);
  } catch (error) {
    const { line, code } = describeFailure(error, { url: '' });
    return fail(line, code);
  }
  const signal = options.signal ?? new AbortController().signal;
  // --url is known once the command line is parsed, before any command makes the client.
  const ctx = createContext({ env, streams, signal, urlOption: () => program.opts<{ url?: string }>().url });
  const program = buildProgram(ctx, streams);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return ctx.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    if (signal.aborted) return fail('interrupted (a run started goes on: switchyard runs ls)', 130);
    // With --json, a script reads the API's refusal in the API's own shape, as over HTTP.
    if (error instanceof ApiError && argv.includes('--json')) streams.out.write(`${JSON.stringify({ error: { code: error.code, message: error.message, details: error.details } })}\n`);
    const { line, code } = describeFailure(error, { url: ctx.url(), keyFrom: env.key?.from });
    return fail(line, code);
  }
}

/** Runs the process's command line; Ctrl-C stops following (a second one exits at once). */
export async function runAsProgram(argv = process.argv.slice(2)): Promise<never> {
  const interrupt = new AbortController();
  process.once('SIGINT', () => {
    interrupt.abort(new Error('interrupted'));
    process.once('SIGINT', () => process.exit(130));
  });
  const code = await main(argv, { signal: interrupt.signal });
  // Output to a pipe may still be queued: exit once it is written.
  process.stdout.write('', () => process.exit(code));
  return new Promise<never>(() => undefined);
}
