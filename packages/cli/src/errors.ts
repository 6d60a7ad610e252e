/**
 * How the command ends: an exit code per kind of outcome, and each failure as one line.
 *
 *   0  done (a followed run completed)
 *   1  a followed run failed or was cancelled, or a batch had runs that did not complete
 *   2  bad usage or input: an unknown option, a file that cannot be read or parsed, a bad variable
 *   3  the API refused the request (4xx: a bad key, an unknown run, a bad input…)
 *   4  no answer from the API: unreachable, timed out, or a 5xx
 */
import { ApiError, ApiUnreachable, EventsUnavailable } from '@switchyard/client';
import { EnvError } from '@switchyard/config';

export const EXIT = { ok: 0, notCompleted: 1, usage: 2, refused: 3, unreachable: 4 } as const;

/** Bad input given to the command itself (a file, a flag's value). */
export class InputError extends Error {
  override name = 'InputError';
}

/** The line to print and the code to exit with, for anything a command throws. */
export function describeFailure(error: unknown, context: { url: string; keyFrom?: string | undefined }): { line: string; code: number } {
  if (error instanceof InputError || error instanceof EnvError) return { line: error.message, code: EXIT.usage };
  if (error instanceof ApiError) {
    const hint = error.status === 401 ? ` (${context.keyFrom ? `the key from ${context.keyFrom} was refused` : 'no key: set SWITCHYARD_KEY, or start the local stack with npm run stack, which writes .data/api-key'})` : '';
    return { line: `${error.call}: ${error.status} ${error.code}: ${error.message}${hint}`, code: error.status >= 500 ? EXIT.unreachable : EXIT.refused };
  }
  if (error instanceof ApiUnreachable) return { line: `cannot reach the API: ${error.message} (start it with npm run stack, or set SWITCHYARD_URL)`, code: EXIT.unreachable };
  if (error instanceof EventsUnavailable) return { line: `events: ${error.message}`, code: error.status !== undefined && error.status < 500 ? EXIT.refused : EXIT.unreachable };
  return { line: `unexpected error: ${error instanceof Error ? error.message : String(error)}`, code: EXIT.notCompleted };
}
