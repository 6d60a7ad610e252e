/**
 * Following runs to their end with a progress bar each (as `npm start` draws them): driven by the
 * runs' events, or by polling a run whose events cannot be had; then each run is read once more,
 * so the caller has its final view, result included.
 */
import { EventsUnavailable, type FollowSettings, type RunView, type SwitchyardClient } from '@switchyard/client';
import { ProgressBoard, type Output } from './progress-board.js';
import type { RunLine } from './progress-line.js';
import { applyRunEvent, applyRunView, hasEnded, initialRunState, liveText, stageLabel, wordsSoFar, type RunState } from './run-state.js';

export interface FollowedRun {
  runId: string;
  /** What its bar is labelled with: a topic, or the pipeline and run id. */
  label: string;
}

export interface FollowRunsOptions {
  client: SwitchyardClient;
  runs: readonly FollowedRun[];
  /** Where the bars are drawn (a terminal is redrawn in place; anything else gets a line per step). */
  out: Output;
  signal?: AbortSignal;
  /** Draw the text arriving under each bar on a terminal (default false). */
  liveText?: boolean;
  /** Ms between reads of a run whose events cannot be had (default 500). */
  pollMs?: number;
  /** The event streams' budgets (see @switchyard/client's FollowOptions). */
  follow?: FollowSettings;
  /** Board redraw interval on a terminal (default 100 ms). */
  intervalMs?: number;
}

const lineOf = (run: FollowedRun, state: RunState, live: boolean): RunLine => ({
  label: run.label,
  status: state.status,
  progress: state.progress,
  stage: stageLabel(state),
  words: wordsSoFar(state),
  detail: live ? liveText(state) : undefined,
});

/** Resolves with each run's final view, in the order given. */
export async function followRuns(options: FollowRunsOptions): Promise<RunView[]> {
  const { client, runs, signal } = options;
  const live = options.liveText ?? false;
  const states = runs.map(() => initialRunState());
  const board = new ProgressBoard(options.out, runs.map((run, i) => lineOf(run, states[i] as RunState, live)), { intervalMs: options.intervalMs });
  const set = (i: number, state: RunState) => {
    states[i] = state;
    board.update(i, lineOf(runs[i] as FollowedRun, state, live));
  };
  try {
    return await Promise.all(
      runs.map(async (run, i) => {
        try {
          await client.followRun(run.runId, (event) => set(i, applyRunEvent(states[i] as RunState, event.event, event.data)), { ...options.follow, signal });
        } catch (error) {
          if (signal?.aborted || !(error instanceof EventsUnavailable) || error.status !== undefined) throw error;
          board.note(`events of ${run.runId} unavailable (${error.message}); reading the run instead`);
          await pollUntilEnded(client, run.runId, (view) => set(i, applyRunView(states[i] as RunState, view)), options.pollMs ?? 500, signal);
        }
        const view = await client.getRun(run.runId);
        set(i, applyRunView(states[i] as RunState, view));
        return view;
      }),
    );
  } finally {
    board.close();
  }
}

async function pollUntilEnded(client: SwitchyardClient, runId: string, onView: (view: RunView) => void, pollMs: number, signal: AbortSignal | undefined): Promise<void> {
  for (;;) {
    signal?.throwIfAborted();
    const view = await client.getRun(runId);
    onView(view);
    if (hasEnded(applyRunView(initialRunState(), view))) return;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
