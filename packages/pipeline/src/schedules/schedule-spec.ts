/**
 * A schedule's request checked before anything is stored: the pipeline exists (and the version),
 * the cron pattern parses in its time zone, an interval is at least a second, the input fits its
 * size bound and the pipeline's input schema. Each problem names the field it is about.
 */
import { CronExpressionParser } from 'cron-parser';
import { z } from 'zod';
import type { ScheduleRequest } from '@switchyard/contracts';
import type { CompiledPipeline } from '../definition/compile.js';
import { DefinitionError, type DefinitionProblem } from '../definition/problems.js';
import { jsonBytesWithin } from '../store/limits.js';

/** A schedule's request that cannot be stored: each problem names its field (`cron`, `input.topic`…). */
export class ScheduleError extends DefinitionError {
  override name = 'ScheduleError';
}

/** What a schedule may be, for every process that stores them (orchestrator and bridge alike). */
export interface ScheduleLimits {
  /** Most schedules a deployment keeps (SCHEDULES_MAX, default 1000). */
  maxSchedules: number;
  /** Largest input of a schedule, as JSON (SCHEDULE_MAX_INPUT_BYTES, default 64 KiB). */
  inputBytes: number;
}

export const DEFAULT_SCHEDULE_LIMITS: Readonly<ScheduleLimits> = { maxSchedules: 1000, inputBytes: 64 * 1024 };

/** The variables of ScheduleLimits, for a service's env.ts. */
export const scheduleEnvShape = {
  /** Most schedules a deployment keeps (default 1000): one more is refused with 409 `schedule_limit`. */
  SCHEDULES_MAX: z.coerce.number().int().min(1).max(100_000).default(DEFAULT_SCHEDULE_LIMITS.maxSchedules),
  /** Largest input of a schedule as JSON, in bytes (default 64 KiB): a larger one is refused with 400 naming `input`. */
  SCHEDULE_MAX_INPUT_BYTES: z.coerce.number().int().min(2).max(1024 * 1024).default(DEFAULT_SCHEDULE_LIMITS.inputBytes),
};

export function scheduleLimitsConfig(env: { SCHEDULES_MAX: number; SCHEDULE_MAX_INPUT_BYTES: number }): ScheduleLimits {
  return { maxSchedules: env.SCHEDULES_MAX, inputBytes: env.SCHEDULE_MAX_INPUT_BYTES };
}

/** Shortest interval between two ticks. */
export const MIN_INTERVAL_MS = 1000;
/** Longest interval (a year): a longer one is a mistake more often than a plan. */
export const MAX_INTERVAL_MS = 366 * 24 * 3600 * 1000;

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** An interval (`30s`, `5m`, or a number of ms) in ms. */
export function intervalMs(every: number | string): number {
  if (typeof every === 'number') return every;
  const match = /^(\d+)(ms|s|m|h|d)$/.exec(every);
  if (!match) return Number.NaN;
  return Number(match[1]) * (UNIT_MS[match[2] ?? ''] ?? Number.NaN);
}

/** Whether `zone` is an IANA time zone this runtime knows. */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** When a cron pattern next fires after `from`, in `timezone`; throws when it does not parse. */
export function nextCronTime(pattern: string, timezone: string | undefined, from = new Date()): Date {
  return CronExpressionParser.parse(pattern, { currentDate: from, ...(timezone ? { tz: timezone } : {}), strict: false }).next().toDate();
}

/**
 * The ticks of a schedule due after `afterMs` and by `now`, oldest first, the latest `max` of them:
 * what a tick taken at `now` finds missed (none when it is on time). A cron pattern is read
 * backwards from `now`, so a pattern firing every second over a long outage costs `max` steps.
 */
export function ticksDue(timing: { cron: string | null; timezone: string | null; every_ms: number | null }, afterMs: number, now: number, max: number): number[] {
  if (timing.every_ms) {
    const count = Math.floor((now - afterMs) / timing.every_ms);
    const first = Math.max(1, count - max + 1);
    return count < 1 ? [] : Array.from({ length: count - first + 1 }, (_, i) => afterMs + (first + i) * timing.every_ms!);
  }
  if (!timing.cron) return [];
  const times = (from: number) => CronExpressionParser.parse(timing.cron as string, { currentDate: new Date(from), ...(timing.timezone ? { tz: timing.timezone } : {}), strict: false });
  if (times(afterMs).next().getTime() > now) return [];
  const due: number[] = [];
  const back = times(now + 1);
  while (due.length < max) {
    const previous = back.prev().getTime();
    if (previous <= afterMs) break;
    due.unshift(previous);
  }
  return due;
}

function timingProblems(request: ScheduleRequest): DefinitionProblem[] {
  const problems: DefinitionProblem[] = [];
  if (request.catch_up_max !== undefined && request.catch_up !== 'all') problems.push({ path: 'catch_up_max', message: 'applies only with catch_up: all' });
  if (request.timezone !== undefined && !isTimeZone(request.timezone)) problems.push({ path: 'timezone', message: `${JSON.stringify(request.timezone)} is not an IANA time zone (e.g. Europe/Paris, UTC)` });
  if ((request.cron === undefined) === (request.every === undefined)) {
    problems.push({ path: request.cron === undefined ? 'cron' : 'every', message: 'give exactly one of cron and every' });
    return problems;
  }
  if (request.cron !== undefined) {
    if (problems.length === 0) {
      try {
        nextCronTime(request.cron, request.timezone);
      } catch (error) {
        problems.push({ path: 'cron', message: `does not parse: ${error instanceof Error ? error.message : String(error)}` });
      }
    }
  } else if (request.every !== undefined) {
    const ms = intervalMs(request.every);
    if (!Number.isFinite(ms) || ms < MIN_INTERVAL_MS || ms > MAX_INTERVAL_MS) problems.push({ path: 'every', message: `must be at least 1s and at most 366d (is ${JSON.stringify(request.every)})` });
  }
  return problems;
}

/**
 * Every problem of a schedule's request, the pipeline's (null: it does not exist) included; a
 * ScheduleError unless there is none.
 */
export function checkScheduleRequest(request: ScheduleRequest, pipeline: CompiledPipeline | null, limits: ScheduleLimits): void {
  const problems = timingProblems(request);
  if (!pipeline) problems.push({ path: request.version === undefined ? 'pipeline' : 'version', message: request.version === undefined ? `no pipeline ${request.pipeline} is registered` : `pipeline ${request.pipeline} has no version ${request.version}` });
  if (jsonBytesWithin(request.input, limits.inputBytes) === undefined) problems.push({ path: 'input', message: `is larger than ${limits.inputBytes} bytes as JSON (SCHEDULE_MAX_INPUT_BYTES)` });
  else if (pipeline) problems.push(...pipeline.checkInput(request.input).map((p) => ({ ...p, path: p.path === '(input)' || !p.path ? 'input' : `input.${p.path}` })));
  if (problems.length > 0) throw new ScheduleError(problems);
}
