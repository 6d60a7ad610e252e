/**
 * `switchyard schedules ls | show NAME | apply -f FILE | pause NAME | resume NAME | delete NAME`.
 * A schedule file is the body of `PUT /v1/schedules/{name}` with its `name` (JSON or YAML).
 */
import { Command } from 'commander';
import type { ScheduleRequest, ScheduleView } from '@switchyard/client';
import type { CliContext } from '../context.js';
import { InputError } from '../errors.js';
import { formatOf, parseText, readInputFile } from '../input.js';
import { printJson, shortTime, table } from '../output.js';
import { nonNegativeInt, positiveInt } from './options.js';

const timing = (s: ScheduleView) => (s.cron ? `cron ${s.cron}${s.timezone ? ` (${s.timezone})` : ''}` : `every ${String(s.every ?? `${s.every_ms ?? 0}ms`)}`);

function describe(s: ScheduleView): string {
  const lines = [
    `schedule  ${s.name}`,
    `pipeline  ${s.pipeline}${s.version ? ` v${s.version}` : ''}`,
    `timing    ${timing(s)}`,
    `catch up  ${s.catch_up}${s.catch_up_max ? ` (at most ${s.catch_up_max})` : ''}`,
    `state     ${s.paused ? 'paused' : `next ${shortTime(s.next_run_at)}`}`,
    `last run  ${s.last_run ? `${s.last_run.run_id} at ${shortTime(s.last_run.at)} (${s.last_run.status ?? 'gone'})` : '-'}`,
    `input     ${JSON.stringify(s.input)}`,
  ];
  return `${lines.join('\n')}\n`;
}

/** A schedule file: `{name, pipeline, cron | every, …}`. */
function readScheduleFile(file: string, maxBytes: number): { name: string; request: ScheduleRequest } {
  const value = parseText(readInputFile(file, maxBytes), formatOf(file) === 'json' ? 'json' : 'yaml', file);
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new InputError(`${file}: a schedule is an object (name, pipeline, cron or every, input)`);
  const { name, ...request } = value as Record<string, unknown>;
  if (typeof name !== 'string' || name === '') throw new InputError(`${file}: "name" (the schedule's name) is missing`);
  return { name, request: request as ScheduleRequest };
}

export function schedulesCommand(ctx: CliContext): Command {
  const schedules = new Command('schedules').description('list, apply, pause, resume and delete schedules');
  const json = (command: Command) => command.option('--json', 'print the API answer as JSON');
  const show = (opts: { json?: boolean }, view: ScheduleView): void => {
    if (opts.json) printJson(ctx, view);
    else ctx.out.write(describe(view));
  };

  json(schedules.command('ls').alias('list').description('list schedules with their timing, state and next run'))
    .option('--limit <n>', 'at most this many', positiveInt('--limit'))
    .option('--offset <n>', 'skip this many', nonNegativeInt('--offset'))
    .action(async (opts: { limit?: number; offset?: number; json?: boolean }) => {
      const list = await ctx.client().listSchedules({ limit: opts.limit, offset: opts.offset });
      if (opts.json) return printJson(ctx, list);
      const rows = list.schedules.map((s) => [s.name, s.pipeline, timing(s), s.paused ? 'paused' : 'active', shortTime(s.next_run_at), s.last_run ? `${s.last_run.status ?? 'gone'} ${shortTime(s.last_run.at)}` : '']);
      ctx.out.write(`${table(['NAME', 'PIPELINE', 'TIMING', 'STATE', 'NEXT', 'LAST'], rows)}\n`);
    });
  json(schedules.command('show').description('read a schedule').argument('<name>', 'the schedule')).action(async (name: string, opts: { json?: boolean }) => show(opts, await ctx.client().getSchedule(name)));
  json(schedules.command('apply').description('create or replace a schedule from a file (JSON or YAML: name, pipeline, cron or every, input, catch_up)'))
    .requiredOption('-f, --file <file>', 'the schedule file')
    .action(async (opts: { file: string; json?: boolean }) => {
      const { name, request } = readScheduleFile(opts.file, ctx.env.maxFileBytes);
      const view = await ctx.client().putSchedule(name, request);
      if (opts.json) return printJson(ctx, view);
      ctx.out.write(`${view.name}: ${timing(view)}, ${view.paused ? 'paused' : `next ${shortTime(view.next_run_at)}`}\n`);
    });
  json(schedules.command('pause').description('pause a schedule: no tick until it is resumed').argument('<name>', 'the schedule')).action(async (name: string, opts: { json?: boolean }) => show(opts, await ctx.client().pauseSchedule(name)));
  json(schedules.command('resume').description('resume a paused schedule').argument('<name>', 'the schedule')).action(async (name: string, opts: { json?: boolean }) => show(opts, await ctx.client().resumeSchedule(name)));
  json(schedules.command('delete').description('delete a schedule; runs it started go on').argument('<name>', 'the schedule')).action(async (name: string, opts: { json?: boolean }) => {
    const deleted = await ctx.client().deleteSchedule(name);
    if (opts.json) return printJson(ctx, deleted);
    ctx.out.write(`${name} deleted\n`);
  });
  return schedules;
}
