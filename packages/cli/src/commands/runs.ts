/**
 * `switchyard runs ls | show ID | cancel ID | events ID | follow ID`.
 */
import { Command, Option } from 'commander';
import type { RunView } from '@switchyard/client';
import type { CliContext } from '../context.js';
import { printJson, resultText, shortTime, table, usd } from '../output.js';
import { eventPrinter } from './events-print.js';
import { endedLine, followAndReport } from './follow-report.js';
import { nonNegativeInt, positiveInt } from './options.js';

const STATUSES = ['queued', 'running', 'waiting', 'completed', 'failed', 'cancelled'] as const;
const pipelineOf = (run: Pick<RunView, 'pipeline' | 'kind'>) => (run.pipeline ? `${run.pipeline.name} v${run.pipeline.version}` : run.kind);

/** Its priority, fair-share key and concurrency key, and why it waits while queued. */
export function flowLine(flow: NonNullable<RunView['flow']>): string {
  const parts = [`priority ${flow.priority}`, `key ${flow.key}${flow.weight ? ` (weight ${flow.weight})` : ''}`];
  if (flow.concurrency) parts.push(`concurrency ${flow.concurrency.value} (limit ${flow.concurrency.limit})`);
  const waiting = flow.waiting;
  if (waiting) parts.push(`waits: ${waiting.reason.replace('_', ' ')}${waiting.ahead !== undefined ? `, ${waiting.ahead} ahead` : ''}`);
  return parts.join('; ');
}

function describeRun(view: RunView): string {
  const lines = [`run       ${view.run_id}`, `pipeline  ${pipelineOf(view)}`, `status    ${view.status} (${Math.round(view.progress)}%)`, `created   ${shortTime(view.created_at)}   updated ${shortTime(view.updated_at)}`];
  if (view.batch_id) lines.push(`batch     ${view.batch_id}`);
  if (view.flow) lines.push(`flow      ${flowLine(view.flow)}`);
  if (view.parent) lines.push(`parent    ${view.parent.run_id} (stage ${view.parent.stage})`);
  if (view.cost_usd !== undefined) lines.push(`cost      ${usd(view.cost_usd)}`);
  if (view.error) lines.push(`error     ${endedLine(view)}`);
  const agents = view.stages.some((s) => s.agent);
  const stages = view.stages.map((s) => [s.name, s.status, String(s.attempts), ...(agents ? [s.agent ? `${s.agent.usage.prompt_tokens + s.agent.usage.completion_tokens}` : '', s.agent ? usd(s.agent.cost_usd) : ''] : []), s.error ? s.error.message : '']);
  lines.push('', table(['STAGE', 'STATUS', 'ATTEMPTS', ...(agents ? ['TOKENS', 'COST'] : []), 'ERROR'], stages));
  if (view.status === 'completed') lines.push('', resultText(view.result));
  return `${lines.join('\n')}\n`;
}

export function runsCommand(ctx: CliContext): Command {
  const runs = new Command('runs').description('list, read, follow and cancel runs');

  runs
    .command('ls')
    .alias('list')
    .description('list runs, newest first')
    .addOption(new Option('--status <status>', 'only runs of this status').choices(STATUSES))
    .option('--pipeline <name>', 'only runs of this pipeline')
    .option('--limit <n>', 'at most this many (default: the API\'s, 20)', positiveInt('--limit'))
    .option('--offset <n>', 'skip this many', nonNegativeInt('--offset'))
    .option('--json', 'print the API answer as JSON')
    .action(async (opts: { status?: (typeof STATUSES)[number]; pipeline?: string; limit?: number; offset?: number; json?: boolean }) => {
      const list = await ctx.client().listRuns({ status: opts.status, pipeline: opts.pipeline, limit: opts.limit, offset: opts.offset });
      if (opts.json) return printJson(ctx, list);
      const rows = list.runs.map((r) => [r.run_id, pipelineOf(r), r.status, `${Math.round(r.progress)}%`, shortTime(r.created_at)]);
      ctx.out.write(`${table(['RUN', 'PIPELINE', 'STATUS', 'PROGRESS', 'CREATED'], rows)}\n`);
    });

  runs
    .command('show')
    .description("read a run: status, stages, and its result once completed")
    .argument('<id>', 'the run id (run_…)')
    .option('--json', 'print the API answer as JSON')
    .action(async (id: string, opts: { json?: boolean }) => {
      const view = await ctx.client().getRun(id);
      if (opts.json) return printJson(ctx, view);
      ctx.out.write(describeRun(view));
    });

  runs
    .command('cancel')
    .description('cancel a run; its stages in flight stop within moments')
    .argument('<id>', 'the run id')
    .option('--json', 'print the API answer as JSON')
    .action(async (id: string, opts: { json?: boolean }) => {
      const view = await ctx.client().cancelRun(id);
      if (opts.json) return printJson(ctx, view);
      ctx.out.write(`${view.run_id} ${view.status}\n`);
    });

  runs
    .command('events')
    .description("print a run's events as they come, until done (a line each: id, type, data)")
    .argument('<id>', 'the run id')
    .option('--after <event-id>', 'only the events after this one (as Last-Event-ID)')
    .option('--json', 'one JSON object per line: {"id","event","data"}')
    .action(async (id: string, opts: { after?: string; json?: boolean }) => {
      await ctx.client().followRun(id, eventPrinter(ctx, opts.json), { lastEventId: opts.after, signal: ctx.signal });
    });

  runs
    .command('follow')
    .description("follow a run to its end with a progress bar, then print its result (exit code from its status)")
    .argument('<id>', 'the run id')
    .option('--json', 'print the final run view as JSON')
    .option('-q, --quiet', 'no progress on stderr')
    .action(async (id: string, opts: { json?: boolean; quiet?: boolean }) => {
      await followAndReport(ctx, { runId: id, label: id }, opts);
    });

  return runs;
}
