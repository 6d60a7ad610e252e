/**
 * Submits a batch through the API and follows it: a progress bar per run, driven by the run's
 * events (SSE), or by polling the run when its events cannot be had; then each completed story
 * is written to `.data/stories/`.
 */
import path from 'node:path';
import type { ApiClient, RunView } from './api.js';
import { ProgressBoard, type Output } from './progress-board.js';
import { applyRunEvent, applyRunView, initialRunState, stageLabel, wordsSoFar, type RunState } from './run-state.js';
import { EventsUnavailable, followRunEvents } from './run-events.js';
import { STORIES_DIR, storyFileNames, writeStory } from './stories.js';

export interface BatchOutcome {
  batchId: string;
  written: { file: string; title: string; words: number }[];
  failed: { topic: string; runId: string; reason: string }[];
}

async function pollUntilEnded(api: ApiClient, runId: string, onView: (view: RunView) => void, signal: AbortSignal): Promise<void> {
  for (;;) {
    const view = await api.getRun(runId);
    onView(view);
    if (['completed', 'failed', 'cancelled'].includes(view.status) || signal.aborted) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

export async function runBatch(options: { api: ApiClient; topics: string[]; out: Output; say: (line: string) => void; signal: AbortSignal; storiesDir?: string }): Promise<BatchOutcome> {
  const { api, topics, signal } = options;
  const batch = await api.submitBatch(topics);
  options.say(`\nbatch ${batch.batch_id}: ${batch.run_ids.length} ${batch.run_ids.length === 1 ? 'story' : 'stories'}\n`);

  const states: RunState[] = batch.run_ids.map(() => initialRunState());
  const lineOf = (i: number) => ({ topic: topics[i] ?? '', status: states[i]?.status ?? 'queued', progress: states[i]?.progress ?? 0, stage: stageLabel(states[i] as RunState), words: wordsSoFar(states[i] as RunState) });
  const board = new ProgressBoard(options.out, batch.run_ids.map((_, i) => lineOf(i)));

  const views = await Promise.all(
    batch.run_ids.map(async (runId, i) => {
      const set = (state: RunState) => {
        states[i] = state;
        board.update(i, lineOf(i));
      };
      try {
        await followRunEvents({
          url: api.url(`/v1/runs/${runId}/events`),
          headers: api.headers,
          signal,
          onEvent: (type, data) => set(applyRunEvent(states[i] as RunState, type, data)),
        });
      } catch (error) {
        if (signal.aborted) throw error;
        if (!(error instanceof EventsUnavailable)) throw error;
        board.note(`events of ${runId} unavailable (${error.message}); polling the run instead`);
        await pollUntilEnded(api, runId, (view) => set(applyRunView(states[i] as RunState, view)), signal);
      }
      const view = await api.getRun(runId);
      set(applyRunView(states[i] as RunState, view));
      return view;
    }),
  );
  board.close();

  const dir = options.storiesDir ?? STORIES_DIR;
  const names = storyFileNames(topics);
  const outcome: BatchOutcome = { batchId: batch.batch_id, written: [], failed: [] };
  views.forEach((view, i) => {
    const topic = topics[i] ?? view.run_id;
    if (view.status !== 'completed' || !view.result) {
      const error = view.error ? ` (${view.error.stage ? `${view.error.stage}: ` : ''}${view.error.message})` : '';
      outcome.failed.push({ topic, runId: view.run_id, reason: `${view.status}${error}` });
      return;
    }
    const file = path.join(dir, names[i] as string);
    writeStory(file, { title: view.result.title, content: view.result.content, runId: view.run_id, wordCount: view.result.word_count, topic });
    outcome.written.push({ file, title: view.result.title, words: view.result.word_count });
  });
  return outcome;
}
