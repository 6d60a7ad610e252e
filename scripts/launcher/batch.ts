/**
 * The main job's batch, a thin use of the client and the CLI's run following: submits the topics
 * as one batch of stories, follows each run with a progress bar (driven by its events, or by
 * reading it when its events cannot be had), then writes each completed story to `.data/stories/`.
 */
import path from 'node:path';
import type { SwitchyardClient } from '@switchyard/client';
import { followRuns, type Output } from '@switchyard/cli';
import { StoryResult } from '@switchyard/contracts';
import { STORIES_DIR, storyFileNames, writeStory } from './stories.js';

export interface BatchOutcome {
  batchId: string;
  written: { file: string; title: string; words: number }[];
  failed: { topic: string; runId: string; reason: string }[];
}

const StoryText = StoryResult.pick({ title: true, content: true, word_count: true });

export async function runBatch(options: { client: SwitchyardClient; topics: string[]; out: Output; say: (line: string) => void; signal: AbortSignal; storiesDir?: string }): Promise<BatchOutcome> {
  const { client, topics, signal } = options;
  const batch = await client.startBatch({ items: topics.map((topic) => ({ topic })) });
  options.say(`\nbatch ${batch.batch_id}: ${batch.run_ids.length} ${batch.run_ids.length === 1 ? 'story' : 'stories'}\n`);
  const views = await followRuns({ client, runs: batch.run_ids.map((runId, i) => ({ runId, label: topics[i] ?? runId })), out: options.out, signal });

  const dir = options.storiesDir ?? STORIES_DIR;
  const names = storyFileNames(topics);
  const outcome: BatchOutcome = { batchId: batch.batch_id, written: [], failed: [] };
  views.forEach((view, i) => {
    const topic = topics[i] ?? view.run_id;
    const story = view.status === 'completed' ? StoryText.safeParse(view.result) : undefined;
    if (!story?.success) {
      const error = view.error ? ` (${view.error.stage ? `${view.error.stage}: ` : ''}${view.error.message})` : story ? ' (its result is not a story)' : '';
      outcome.failed.push({ topic, runId: view.run_id, reason: `${view.status}${error}` });
      return;
    }
    const file = path.join(dir, names[i] as string);
    writeStory(file, { title: story.data.title, content: story.data.content, runId: view.run_id, wordCount: story.data.word_count, topic });
    outcome.written.push({ file, title: story.data.title, words: story.data.word_count });
  });
  return outcome;
}
