/**
 * `switchyard inbox`, `approve RUN_ID CALL_ID`, `signal RUN_ID NAME`: what runs wait for, and the
 * answers people give them, over the same routes as the dashboard's inbox.
 */
import { Command } from 'commander';
import type { CliContext } from '../context.js';
import { parseText, runInput } from '../input.js';
import { printJson, shortTime, table } from '../output.js';
import { collect, nonNegativeInt, positiveInt } from './options.js';

/** An inbox item's arguments (a tool call's, as the model gave them) as JSON on one line. */
const oneLine = (args: Record<string, unknown> | undefined, max = 60) => {
  const flat = args === undefined ? '' : JSON.stringify(args);
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

export function inboxCommand(ctx: CliContext): Command {
  return new Command('inbox')
    .description('list what runs wait for, oldest first: tool calls to approve and signals to send')
    .option('--pipeline <name>', 'only runs of this pipeline')
    .option('--run <id>', 'only this run')
    .option('--limit <n>', 'at most this many', positiveInt('--limit'))
    .option('--offset <n>', 'skip this many', nonNegativeInt('--offset'))
    .option('--json', 'print the API answer as JSON')
    .action(async (opts: { pipeline?: string; run?: string; limit?: number; offset?: number; json?: boolean }) => {
      const list = await ctx.client().listInbox({ pipeline: opts.pipeline, run_id: opts.run, limit: opts.limit, offset: opts.offset });
      if (opts.json) return printJson(ctx, list);
      const rows = list.items.map((item) => [item.run_id, item.pipeline, item.stage, item.kind, item.key, item.kind === 'approval' ? `${item.tool ?? ''} ${oneLine(item.arguments)}` : item.key, shortTime(item.created_at)]);
      ctx.out.write(`${table(['RUN', 'PIPELINE', 'STAGE', 'KIND', 'KEY', 'WAITS FOR', 'SINCE'], rows)}\n`);
    });
}

export function approveCommand(ctx: CliContext): Command {
  return new Command('approve')
    .description('approve a tool call that waits (with edited arguments), or refuse it with --reject')
    .argument('<run-id>', 'the run (run_…)')
    .argument('<call-id>', "the call (the inbox's KEY)")
    .option('--reject', 'refuse the call: the model reads the refusal (and the note) as its result')
    .option('--arguments <json>', 'approve with these arguments instead (checked against the tool\'s schema)')
    .option('--set <key=value>', 'edit one argument over the call\'s own (repeatable; dots nest)', collect)
    .option('--note <text>', 'why, for the model to read (at most 2,000 characters)')
    .option('--json', 'print the API answer as JSON')
    .action(async (runId: string, callId: string, opts: { reject?: boolean; arguments?: string; set?: string[]; note?: string; json?: boolean }) => {
      const client = ctx.client();
      let edited: Record<string, unknown> | undefined;
      if (opts.arguments !== undefined || opts.set?.length) {
        // --set edits the call's own arguments unless --arguments gives others.
        const own = opts.arguments === undefined ? await argumentsOf(ctx, runId, callId) : undefined;
        edited = runInput({ input: opts.arguments ?? own, set: opts.set }, ctx.env.maxFileBytes);
      }
      const answer = await client.answerApproval(runId, callId, { approve: !opts.reject, ...(edited && !opts.reject ? { arguments: edited } : {}), ...(opts.note ? { note: opts.note } : {}) });
      if (opts.json) return printJson(ctx, answer);
      ctx.out.write(`${runId} ${callId}: ${answer.approve ? 'approved' : 'refused'} (${answer.status})\n`);
    });
}

/** The waiting call's own arguments as JSON text (what --set edits), from the inbox. */
async function argumentsOf(ctx: CliContext, runId: string, callId: string): Promise<string | undefined> {
  const list = await ctx.client().listInbox({ run_id: runId, limit: 200 });
  const own = list.items.find((item) => item.kind === 'approval' && item.key === callId)?.arguments;
  return own === undefined ? undefined : JSON.stringify(own);
}

export function signalCommand(ctx: CliContext): Command {
  return new Command('signal')
    .description("send a signal to a run's wait step; its payload is checked against the step's schema")
    .argument('<run-id>', 'the run (run_…)')
    .argument('<name>', 'the signal the wait step takes')
    .option('--payload <json>', 'the payload, as JSON (default {})')
    .option('--set <key=value>', 'one field of the payload (repeatable; dots nest)', collect)
    .option('--json', 'print the API answer as JSON')
    .action(async (runId: string, name: string, opts: { payload?: string; set?: string[]; json?: boolean }) => {
      const payload = opts.set?.length ? runInput({ input: opts.payload, set: opts.set }, ctx.env.maxFileBytes) : opts.payload === undefined ? {} : parseText(opts.payload, 'json', '--payload');
      const answer = await ctx.client().sendSignal(runId, name, payload);
      if (opts.json) return printJson(ctx, answer);
      ctx.out.write(`${runId} ${name}: ${(answer as { status?: string }).status ?? 'sent'}\n`);
    });
}
