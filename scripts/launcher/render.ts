/**
 * How the main job writes a story: its file name, and the story as Markdown.
 */

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
