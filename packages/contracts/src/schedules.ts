/**
 * Schedules on the wire: `PUT /v1/schedules/{name}` and what reading one answers. A schedule runs a
 * pipeline on a cron pattern or at a fixed interval, through BullMQ's job schedulers.
 */
import { z } from 'zod';
import { RunPriority, RunStatus } from './story-runs.js';

/** A schedule's name: letters, digits, `-` and `_`, 1 to 64, starting with a letter or digit. */
export const SCHEDULE_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** An interval as `<n><unit>` (ms, s, m, h, d) or a number of milliseconds. */
export const ScheduleInterval = z.union([z.number().int().positive(), z.string().regex(/^\d{1,12}(ms|s|m|h|d)$/, 'an interval such as 30s, 5m, 1h or 1d')]);

/** What a schedule does with the ticks missed while every worker was down. */
export const SCHEDULE_CATCH_UP = ['none', 'latest', 'all'] as const;
export type ScheduleCatchUp = (typeof SCHEDULE_CATCH_UP)[number];
export const DEFAULT_CATCH_UP_MAX = 10;
export const MAX_CATCH_UP = 100;

/** `PUT /v1/schedules/{name}`: one of `cron` and `every`. */
export const ScheduleRequest = z
  .strictObject({
    pipeline: z.string().min(1).max(60).describe('The registered pipeline it runs'),
    version: z.number().int().positive().optional().describe('The version every run is pinned to (default: the latest at each tick)'),
    cron: z.string().min(1).max(120).optional().describe('A cron pattern (5 fields, or 6 with seconds first), read in `timezone`'),
    every: ScheduleInterval.optional().describe('An interval (`30s`, `5m`, or ms), at least 1 s'),
    timezone: z.string().min(1).max(64).optional().describe('An IANA time zone for `cron` (default UTC)'),
    input: z.record(z.string(), z.unknown()).default({}).describe("Each run's input, checked against the pipeline's input schema"),
    priority: RunPriority.optional().describe('The priority class of its runs: 1 goes first, 9 last (default 6, as batch work)'),
    catch_up: z.enum(SCHEDULE_CATCH_UP).optional().describe('Ticks missed while every worker was down: `latest` (default) runs one, for the latest missed tick; `none` runs none; `all` runs each, up to `catch_up_max`'),
    catch_up_max: z.number().int().min(1).max(MAX_CATCH_UP).optional().describe(`With catch_up all: the most missed ticks run after an outage (default ${DEFAULT_CATCH_UP_MAX}, at most ${MAX_CATCH_UP}), the latest ones`),
  })
  .describe('A schedule: exactly one of `cron` and `every`');
export type ScheduleRequest = z.infer<typeof ScheduleRequest>;

/** The run a schedule's last tick started. */
export const ScheduleLastRun = z.object({
  run_id: z.string(),
  at: z.string().describe('When the tick was due (ISO 8601)'),
  status: RunStatus.nullable().describe('The run\'s status now; null once it is gone (retention)'),
});

export const ScheduleView = z.object({
  name: z.string(),
  pipeline: z.string(),
  version: z.number().int().positive().nullable(),
  cron: z.string().nullable(),
  every: ScheduleInterval.nullable().describe('The interval as it was given (`3s`, or ms)'),
  every_ms: z.number().int().positive().nullable().describe('The interval in ms'),
  timezone: z.string().nullable(),
  input: z.record(z.string(), z.unknown()),
  priority: z.number().int().min(1).max(9).nullable().describe('Its runs\' priority class (null: the default, 6)'),
  catch_up: z.enum(SCHEDULE_CATCH_UP),
  catch_up_max: z.number().int().positive().nullable().describe('With catch_up all: the most missed ticks run'),
  paused: z.boolean(),
  created_at: z.string(),
  updated_at: z.string(),
  next_run_at: z.string().nullable().describe('When the next tick is due; null while paused'),
  last_run: ScheduleLastRun.nullable(),
});
export type ScheduleView = z.infer<typeof ScheduleView>;

export const ScheduleList = z.object({
  schedules: z.array(ScheduleView),
  offset: z.number().int().nonnegative(),
  limit: z.number().int().positive(),
  total: z.number().int().nonnegative(),
  next_offset: z.number().int().nonnegative().nullable(),
});
export type ScheduleList = z.infer<typeof ScheduleList>;

export const ScheduleDeleted = z.object({ name: z.string(), deleted: z.literal(true) });
export type ScheduleDeleted = z.infer<typeof ScheduleDeleted>;
