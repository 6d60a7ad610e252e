/**
 * What the main job prints: a progress bar per run, and a story as Markdown.
 */

export interface RunLine {
  topic: string;
  status: string;
  progress: number;
  /** The stage running now, if any. */
  stage?: string | undefined;
  /** Words written so far, once there are some. */
  words?: number | undefined;
}

const BAR_WIDTH = 24;

/** One line: `[██████░░░░]  60% running   write.climax        412 words  a topic…`. */
export function progressLine(run: RunLine, topicWidth = 40): string {
  const percent = Math.max(0, Math.min(100, Math.round(run.progress)));
  const filled = Math.round((percent / 100) * BAR_WIDTH);
  const bar = `${'█'.repeat(filled)}${'░'.repeat(BAR_WIDTH - filled)}`;
  const topic = run.topic.length > topicWidth ? `${run.topic.slice(0, topicWidth - 1)}…` : run.topic;
  const words = run.words ? `${run.words} words` : '';
  return `[${bar}] ${String(percent).padStart(3)}% ${run.status.padEnd(9)} ${(run.stage ?? '').padEnd(18)} ${words.padStart(11)}  ${topic}`;
}

/** A file name from a topic: lower case, dashes, at most 60 characters; never empty. */
export function slugOf(topic: string): string {
  const slug = topic
    .normalize('NFKD')
    .replace(/\p{Mn}/gu, '') // accents, split off by NFKD
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  return slug || 'story';
}

export function storyMarkdown(story: { title: string; content: string; runId: string; wordCount: number; topic: string }): string {
  return `# ${story.title}\n\n${story.content.trim()}\n\n---\n\n*${story.wordCount} words · topic: ${story.topic} · run ${story.runId}*\n`;
}
