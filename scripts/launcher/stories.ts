/**
 * Where the stories of a batch go: `.data/stories/<slug>.md`, one file per topic; two topics
 * with the same slug in one batch get `-2`, `-3`… rather than overwriting each other.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '@switchyard/redis';
import { slugOf, storyMarkdown } from './render.js';

export const STORIES_DIR = path.join(REPO_ROOT, '.data', 'stories');

/** A file name per topic, in order, none used twice. */
export function storyFileNames(topics: readonly string[]): string[] {
  const taken = new Set<string>();
  return topics.map((topic) => {
    const base = slugOf(topic);
    let name = base;
    for (let n = 2; taken.has(name); n += 1) name = `${base}-${n}`;
    taken.add(name);
    return `${name}.md`;
  });
}

export function writeStory(file: string, story: { title: string; content: string; runId: string; wordCount: number; topic: string }): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, storyMarkdown(story));
}
