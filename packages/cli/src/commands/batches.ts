/**
 * `switchyard batches create -f ITEMS | ls | show ID | events ID`.
 */
import { Command } from 'commander';
import type { BatchAccepted, BatchRequest, RunView } from '@switchyard/client';
import type { CliContext } from '../context.js';
import { EXIT, InputError } from '../errors.js';
import { followBatch } from '../follow/follow-batch.js';
import { followRuns } from '../follow/follow-runs.js';
import { parseText, readBatchFile } from '../input.js';
import { printJson, shortTime, table, usd } from '../output.js';
import { eventPrinter } from './events-print.js';
import { endedLine, SILENT } from './follow-report.js';
import { nonNegativeInt, positiveInt, priorityOption } from './options.js';

/** Runs of a followed batch that get a bar each; a larger batch gets one bar for all. */
export const MAX_BARS = 20;

const counts = (c: Record<string, number>) => Object.entries(c).filter(([, n]) => n > 0).map(([status, n]) => `${n} ${status}`).join(', ') || '-';

/** A bar's label from an item: its topic, title or name, else its place. */
function labelOf(item: Record<string, unknown> | undefined, index: number): string {
  for (const key of ['topic', 'title', 'name']) if (typeof item?.[key] === 'string') return item[key];
  return `item ${index + 1}`;
}

interface CreateOptions {
  file: string;
  pipeline?: string;
  version?: number;
  priority?: number;
  defaults?: string;
  idempotencyKey?: string;
  follow?: boolean;
  json?: boolean;
  quiet?: boolean;
}

async function followCreated(ctx: CliContext, batch: BatchAccepted, items: Record<string, unknown>[], opts: CreateOptions): Promise<void> {
  const out = opts.quiet ? SILENT : ctx.err;
  if (batch.total > MAX_BARS) {
    const view = await followBatch({ client: ctx.client(), batch, out, signal: ctx.signal });
    const notCompleted = (view.counts.failed ?? 0) + (view.counts.cancelled ?? 0);
    if (opts.json) printJson(ctx, view);
    else ctx.out.write(`${batch.batch_id}: ${counts(view.counts)}\n`);
    if (notCompleted > 0) ctx.exitCode = EXIT.notCompleted;
    return;
  }
  const views: RunView[] = await followRuns({ client: ctx.client(), runs: batch.run_ids.map((runId, i) => ({ runId, label: labelOf(items[i], i) })), out, signal: ctx.signal });
  if (opts.json) printJson(ctx, { batch_id: batch.batch_id, runs: views });
  else ctx.out.write(`${table(['RUN', 'STATUS', 'ITEM'], views.map((v, i) => [v.run_id, v.status, labelOf(items[i], i)]))}\n`);
  const ended = views.filter((v) => v.status !== 'completed');
  for (const view of ended) ctx.err.write(`${endedLine(view)}\n`);
  if (ended.length > 0) ctx.exitCode = EXIT.notCompleted;
}

export function batchesCommand(ctx: CliContext): Command {
  const batches = new Command('batches').description('start, list, read and follow batches of runs');

  batches
    .command('create')
    .description('start a batch from a file of items: a JSON or YAML list, JSON lines, or {items, defaults?, pipeline?}')
    .requiredOption('-f, --file <file>', 'the items (.json, .jsonl, .yaml)')
    .option('--pipeline <name>', "the pipeline each item is an input of (default: the file's, else story requests)")
    .option('--version <n>', 'that pipeline\'s version (default: the latest)', positiveInt('--version'))
    .option('--priority <n>', "its runs' priority class, 1 (first) to 9 (last); default 6", priorityOption)
    .option('--defaults <json>', 'fields every item takes unless it has its own, as a JSON object')
    .option('--idempotency-key <key>', 'the same key and items again answer the same batch')
    .option('--follow', `follow the batch to its end (a bar per run up to ${MAX_BARS} runs, else one for the batch)`)
    .option('--json', 'print JSON: the accepted batch, or with --follow how it ended')
    .option('-q, --quiet', 'with --follow: no progress on stderr')
    .action(async (opts: CreateOptions) => {
      const file = readBatchFile(opts.file, ctx.env.maxFileBytes);
      const defaults = opts.defaults === undefined ? file.defaults : parseText(opts.defaults, 'json', '--defaults');
      if (defaults !== undefined && (defaults === null || typeof defaults !== 'object' || Array.isArray(defaults))) throw new InputError('--defaults: expected a JSON object');
      const pipeline = opts.pipeline ?? file.pipeline;
      const body = (pipeline ? { pipeline, items: file.items, ...(opts.version ? { version: opts.version } : {}), ...(defaults ? { defaults } : {}) } : { items: file.items, ...(defaults ? { defaults } : {}) }) as BatchRequest;
      if (opts.priority) body.priority = opts.priority;
      const batch = await ctx.client().startBatch(body, { idempotencyKey: opts.idempotencyKey });
      if (opts.follow) return followCreated(ctx, batch, file.items, opts);
      if (opts.json) return printJson(ctx, batch);
      ctx.out.write(`${batch.batch_id}\n`);
      ctx.err.write(`${batch.total} runs queued; follow them with: switchyard batches events ${batch.batch_id}\n`);
    });

  batches
    .command('ls')
    .alias('list')
    .description('list batches, newest first, with their counts')
    .option('--limit <n>', 'at most this many', positiveInt('--limit'))
    .option('--offset <n>', 'skip this many', nonNegativeInt('--offset'))
    .option('--json', 'print the API answer as JSON')
    .action(async (opts: { limit?: number; offset?: number; json?: boolean }) => {
      const list = await ctx.client().listBatches({ limit: opts.limit, offset: opts.offset });
      if (opts.json) return printJson(ctx, list);
      const rows = list.batches.map((b) => [b.batch_id, b.pipeline ?? 'story', b.status, String(b.total), counts(b.counts), shortTime(b.created_at)]);
      ctx.out.write(`${table(['BATCH', 'PIPELINE', 'STATUS', 'RUNS', 'COUNTS', 'CREATED'], rows)}\n`);
    });

  batches
    .command('show')
    .description('read a batch: its counts and a page of its runs')
    .argument('<id>', 'the batch id (batch_…)')
    .option('--limit <n>', 'runs in the page', positiveInt('--limit'))
    .option('--offset <n>', 'runs to skip', nonNegativeInt('--offset'))
    .option('--json', 'print the API answer as JSON')
    .action(async (id: string, opts: { limit?: number; offset?: number; json?: boolean }) => {
      const view = await ctx.client().getBatch(id, { limit: opts.limit, offset: opts.offset });
      if (opts.json) return printJson(ctx, view);
      const cost = view.cost_usd > 0 ? `cost      ${usd(view.cost_usd)} (its ended runs' agents)\n` : '';
      const head = `batch     ${view.batch_id}\nstatus    ${view.status}: ${counts(view.counts)} of ${view.total}\n${cost}created   ${shortTime(view.created_at)}\n\n`;
      ctx.out.write(`${head}${table(['RUN', 'STATUS'], view.runs.map((r) => [r.run_id, r.status ?? '-']))}\n`);
      if (view.offset + view.runs.length < view.total) ctx.err.write(`runs ${view.offset + 1}-${view.offset + view.runs.length} of ${view.total}; --offset for more\n`);
    });

  batches
    .command('events')
    .description("print a batch's events as they come (each run as it ends, then done)")
    .argument('<id>', 'the batch id')
    .option('--after <event-id>', 'only the events after this one (as Last-Event-ID)')
    .option('--json', 'one JSON object per line: {"id","event","data"}')
    .action(async (id: string, opts: { after?: string; json?: boolean }) => {
      await ctx.client().followBatch(id, eventPrinter(ctx, opts.json), { lastEventId: opts.after, signal: ctx.signal });
    });

  return batches;
}
