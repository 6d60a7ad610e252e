/**
 * The `wait` step kind: the run waits for a signal (`POST /v1/runs/{id}/signals/{name}`), whose
 * payload, checked against `schema`, is the step's output. A wait holds no worker (its job sits in
 * the delayed set) and may last days.
 */
import { z } from 'zod';

/** Signal names: plain, as they appear in URLs and fields. */
export const SIGNAL_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,59}$/;
/** The longest a wait may last: 365 days; the default 7 days. */
export const MAX_WAIT_MS = 365 * 24 * 3600_000;
export const DEFAULT_WAIT_MS = 7 * 24 * 3600_000;

const UNITS = { ms: 1, s: 1000, m: 60_000, h: 3600_000, d: 24 * 3600_000 } as const;

/** A duration up to 365 days: milliseconds, or a number with ms, s, m, h or d (`2d`, `90m`). */
export const WaitDuration = z.union([
  z.number().int().positive().max(MAX_WAIT_MS),
  z
    .string()
    .regex(/^\d+(\.\d+)?(ms|s|m|h|d)$/, 'expected a duration such as 30s, 2h or 2d')
    .transform((text, ctx) => {
      const [, amount, unit] = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(text) ?? [];
      const ms = Math.round(Number(amount) * UNITS[unit as keyof typeof UNITS]);
      if (ms <= 0 || ms > MAX_WAIT_MS) ctx.addIssue({ code: 'custom', message: 'a wait lasts above 0 and at most 365d' });
      return ms;
    }),
]);

export const WaitDefinition = z.strictObject({
  signal: z.string().regex(SIGNAL_NAME, 'a signal name is a letter then letters, digits, _ or - (at most 60)').describe('The signal the step waits for: POST /v1/runs/{id}/signals/{signal}'),
  schema: z.record(z.string(), z.unknown()).optional().describe("JSON Schema of the signal's payload: a payload that breaks it is refused with 400 naming the field"),
  timeout: WaitDuration.optional().describe('How long the step waits (default 7d, at most 365d)'),
  on_timeout: z.enum(['fail', 'continue']).default('fail').describe('`fail`: the step fails with wait_timed_out; `continue`: its output is null'),
});
export type WaitDefinition = z.output<typeof WaitDefinition>;
