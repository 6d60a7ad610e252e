/**
 * Following one run to its end and saying how it ended: the progress bar (and the text arriving)
 * on stderr, then the result on stdout — as text, or the run view with --json — and the exit code
 * from the run's status.
 */
import type { RunView } from '@switchyard/client';
import type { CliContext } from '../context.js';
import { EXIT } from '../errors.js';
import { followRuns } from '../follow/follow-runs.js';
import type { Output } from '../follow/progress-board.js';
import { printJson, resultText } from '../output.js';

export const SILENT: Output = { write: () => true };

export interface ReportOptions {
  json?: boolean | undefined;
  /** No progress on stderr. */
  quiet?: boolean | undefined;
}

/** A run that did not complete, in one line: `failed at polish: HTTP 503`. */
export function endedLine(view: Pick<RunView, 'run_id' | 'status' | 'error'>): string {
  const why = view.error ? `${view.error.stage ? ` at ${view.error.stage}` : ''}: ${view.error.message}` : '';
  return `${view.run_id} ${view.status}${why}`;
}

export async function followAndReport(ctx: CliContext, run: { runId: string; label: string }, options: ReportOptions): Promise<RunView> {
  const [view] = await followRuns({ client: ctx.client(), runs: [run], out: options.quiet ? SILENT : ctx.err, signal: ctx.signal, liveText: true });
  const final = view as RunView;
  if (options.json) printJson(ctx, final);
  else if (final.status === 'completed') ctx.out.write(`${resultText(final.result)}\n`);
  if (final.status !== 'completed') {
    ctx.err.write(`${endedLine(final)}\n`);
    ctx.exitCode = EXIT.notCompleted;
  }
  return final;
}
