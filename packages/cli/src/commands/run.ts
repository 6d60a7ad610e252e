/**
 * `switchyard run PIPELINE --input '{…}' | -i FILE | --set k=v [--follow]`.
 */
import { Command } from 'commander';
import type { CliContext } from '../context.js';
import { runInput } from '../input.js';
import { printJson } from '../output.js';
import { followAndReport } from './follow-report.js';
import { collect, positiveInt, priorityOption } from './options.js';

interface RunOptions {
  input?: string;
  inputFile?: string;
  set?: string[];
  version?: number;
  priority?: number;
  idempotencyKey?: string;
  follow?: boolean;
  json?: boolean;
  quiet?: boolean;
}

export function runCommand(ctx: CliContext): Command {
  return new Command('run')
    .description("start a run of a pipeline; with --follow, show its progress and print its result (exit code from the run's status)")
    .argument('<pipeline>', "the pipeline's name")
    .option('--input <json>', 'the input, as a JSON object')
    .option('-i, --input-file <file>', 'the input, from a JSON or YAML file')
    .option('--set <key=value>', 'set one field of the input (repeatable; dots for nested fields; the value is JSON when it reads as JSON, else text)', collect)
    .option('--version <n>', 'run this version (default: the latest)', positiveInt('--version'))
    .option('--priority <n>', 'its priority class, 1 (first) to 9 (last); default 3, ahead of batch work', priorityOption)
    .option('--idempotency-key <key>', 'the same key and input again answer the same run')
    .option('-f, --follow', 'follow the run to its end: progress on stderr, the result on stdout')
    .option('--json', 'print JSON: the accepted run, or with --follow the final run view')
    .option('-q, --quiet', 'with --follow: no progress on stderr')
    .addHelpText('after', `\nExamples:\n  switchyard run section-review --set topic="a tide clock" --follow\n  switchyard run story --input '{"topic":"a robot baker","style":"concise"}'\n  switchyard run section-review -i input.yaml --json`)
    .action(async (pipeline: string, opts: RunOptions) => {
      const input = runInput({ input: opts.input, inputFile: opts.inputFile, set: opts.set }, ctx.env.maxFileBytes);
      const accepted = await ctx.client().startRun(pipeline, input, { version: opts.version, priority: opts.priority, idempotencyKey: opts.idempotencyKey });
      if (opts.follow) {
        if (!opts.quiet) ctx.err.write(`${accepted.run_id}: ${accepted.pipeline.name} version ${accepted.pipeline.version}\n`);
        await followAndReport(ctx, { runId: accepted.run_id, label: accepted.pipeline.name }, opts);
        return;
      }
      if (opts.json) return printJson(ctx, accepted);
      ctx.out.write(`${accepted.run_id}\n`);
      ctx.err.write(`${accepted.status}: ${accepted.pipeline.name} version ${accepted.pipeline.version}; follow it with: switchyard runs follow ${accepted.run_id}\n`);
    });
}
