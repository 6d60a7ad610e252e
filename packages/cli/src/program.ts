/**
 * The `switchyard` command line (commander): its commands, their help, and one line for a usage
 * error. Commands throw; `main` turns what they throw into a line and an exit code.
 */
import { Command } from 'commander';
import { batchesCommand } from './commands/batches.js';
import { pipelinesCommand } from './commands/pipelines.js';
import { runCommand } from './commands/run.js';
import { httpUrl } from './commands/options.js';
import { runsCommand } from './commands/runs.js';
import { schedulesCommand } from './commands/schedules.js';
import { approveCommand, inboxCommand, signalCommand } from './commands/waits.js';
import type { CliContext } from './context.js';
import { DEFAULT_URL } from './env.js';
import type { Streams } from './output.js';

const FOOTER = `
Environment:
  SWITCHYARD_URL             the API (default ${DEFAULT_URL}, the local stack's); --url overrides it
  SWITCHYARD_KEY             the API key (default: the local stack's, from .data/api-key in this checkout)
  SWITCHYARD_TIMEOUT_MS      ms one API call may take (default 30000)
  SWITCHYARD_MAX_FILE_BYTES  largest input file read (default 33554432, 32 MiB)

Exit codes: 0 done; 1 a run failed or was cancelled; 2 bad usage or input; 3 the API refused
(401, 403, 404, 409, …); 4 the API could not be reached, timed out, or failed (5xx).`;

/** Applies `configure` to a command and every command under it. */
function eachCommand(command: Command, configure: (c: Command) => void): void {
  configure(command);
  for (const sub of command.commands) eachCommand(sub, configure);
}

export function buildProgram(ctx: CliContext, streams: Streams): Command {
  const program = new Command('switchyard')
    .description('Drive a Switchyard API from a terminal or a script: pipelines, runs, batches, the inbox and schedules.')
    .option('--url <url>', `the API's URL (default: SWITCHYARD_URL, else ${DEFAULT_URL})`, httpUrl)
    .addHelpText('after', FOOTER)
    .addCommand(pipelinesCommand(ctx))
    .addCommand(runCommand(ctx))
    .addCommand(runsCommand(ctx))
    .addCommand(batchesCommand(ctx))
    .addCommand(inboxCommand(ctx))
    .addCommand(approveCommand(ctx))
    .addCommand(signalCommand(ctx))
    .addCommand(schedulesCommand(ctx));
  eachCommand(program, (command) => {
    command
      .exitOverride()
      .showSuggestionAfterError()
      .configureOutput({
        writeOut: (text) => streams.out.write(text),
        writeErr: (text) => streams.err.write(text),
        // Commander's "error: …" becomes the command's one line.
        outputError: (text, write) => write(`switchyard: ${text.replace(/^error: /, '').trim().replace(/\s*\n\s*/g, ' ')} (see ${command.name() === 'switchyard' ? '' : `${fullName(command)} `}--help)\n`),
      });
  });
  return program;
}

function fullName(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}
