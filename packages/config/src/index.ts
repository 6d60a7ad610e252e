/**
 * Each service's env.ts declares a zod schema and calls `loadEnv` once at start-up. A bad value
 * stops the process with a single line naming the variable, before anything else happens.
 */
import { z } from 'zod';

export class EnvError extends Error {
  override name = 'EnvError';
}

/** Parses `source` against `schema`; throws EnvError whose message names the first bad variable. */
export function parseEnv<S extends z.ZodType>(options: { service: string; schema: S; source: Record<string, string | undefined> }): z.output<S> {
  // An empty variable means unset, as compose files and shells pass them (`LLM_BASE_URL=`).
  const source = Object.fromEntries(Object.entries(options.source).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = options.schema.safeParse(source);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const name = issue?.path.map(String).join('.') || '(environment)';
  const value = issue?.path.length ? options.source[String(issue.path[0])] : undefined;
  const shown = value === undefined ? 'unset' : `"${value.length > 60 ? `${value.slice(0, 60)}…` : value}"`;
  throw new EnvError(`${options.service}: invalid environment variable ${name} (${shown}): ${issue?.message ?? 'invalid'}`);
}

/** parseEnv, but on failure writes the one line to stderr and exits with code 2. */
export function loadEnv<S extends z.ZodType>(options: { service: string; schema: S; source: Record<string, string | undefined> }): z.output<S> {
  try {
    return parseEnv(options);
  } catch (error) {
    if (!(error instanceof EnvError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
}

/** A comma-separated list variable, e.g. `API_KEYS=a,b` → ["a","b"]. */
export const commaList = z.string().transform((s) => s.split(',').map((item) => item.trim()).filter(Boolean));

/** A boolean variable: 1/0, true/false, yes/no. */
export const booleanFlag = z
  .enum(['1', '0', 'true', 'false', 'yes', 'no'])
  .transform((value) => value === '1' || value === 'true' || value === 'yes');
