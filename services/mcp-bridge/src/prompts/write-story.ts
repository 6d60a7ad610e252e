/**
 * `write_story(topic, style?, audience?)`: tells the agent to start a story with the job tools,
 * wait for it (as an MCP task when the client runs tasks), and read it from its story resource.
 */
import type { GetPromptResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { matching } from '../completions/sources.js';
import { completableString, type PromptDefinition } from './kit.js';

/** Styles and audiences the story tools know by name; others are passed on as written. */
export const STORY_STYLES = ['descriptive', 'concise', 'whimsical', 'lyrical', 'suspenseful', 'humorous', 'noir', 'epic'] as const;
export const STORY_AUDIENCES = ['general', 'children', 'young_adult', 'adult', 'technical'] as const;

const args = {
  topic: z.string().trim().min(1).max(500).describe('What the story is about'),
  style: completableString(z.string().trim().min(1).max(50).optional().describe(`The writing style, e.g. ${STORY_STYLES.join(', ')}`), (value) => matching(STORY_STYLES, value)),
  audience: completableString(z.string().trim().min(1).max(50).optional().describe(`Who it is for, e.g. ${STORY_AUDIENCES.join(', ')}`), (value) => matching(STORY_AUDIENCES, value)),
};

function render(input: { topic: string; style?: string | undefined; audience?: string | undefined }): GetPromptResult {
  const request = { topic: input.topic, ...(input.style ? { style: input.style } : {}), ...(input.audience ? { target_audience: input.audience } : {}) };
  const text = [
    `Write a story about "${input.topic}" with Switchyard's story pipeline${input.style ? `, in a ${input.style} style` : ''}${input.audience ? `, for a ${input.audience} audience` : ''}.`,
    '',
    `1. Call the tool start_story with ${JSON.stringify(request)}. It answers a run_id at once.`,
    '2. Wait for the run: call wait_for_run with that run_id and timeout_s 120 — as an MCP task (tools/call with `task`) if your client supports tasks, so that the wait may take as long as the run does. Pass a progressToken to follow its stages. If it answers timed_out, call it again.',
    '   Alternatively subscribe to the resource switchyard://runs/{run_id}: notifications/resources/updated arrive as the run moves on.',
    '3. When the run has completed, read the resource switchyard://runs/{run_id}/story.md (the story as Markdown: title, text, sections) — or call get_run for the same story as JSON.',
    '4. If the run failed, report its error (code and message) and the stage it names; do not start it again unless asked.',
    '',
    'Answer with the story\'s title and the story itself.',
  ].join('\n');
  return { description: `Write a story about ${input.topic}`, messages: [{ role: 'user', content: { type: 'text', text } }] };
}

export const writeStoryPrompt: PromptDefinition<typeof args> = {
  name: 'write_story',
  title: 'Write a story',
  description: 'Start a story run about a topic, wait for it with the job tools (or as a task), and read the story from its resource.',
  args,
  render: (input) => render(input),
};
