/**
 * What a reply means: unwrapping the sync envelope, building a result from streamed chunks when
 * `done` carries none, and checking story-tool outputs against the seed's shapes.
 */
import { RunEnvelope, STORY_TOOL_SCHEMAS, countWords, readingTime, type StoryToolName } from '@switchyard/contracts';
import { ToolProtocolError } from './errors.js';

/** A sync reply is `{result, metadata}` (seed 004 §2.3); a bare output is accepted as well. */
export function unwrapRunReply(body: unknown): unknown {
  const envelope = RunEnvelope.safeParse(body);
  return envelope.success ? envelope.data.result : body;
}

function isStoryTool(tool: string): tool is StoryToolName {
  return Object.hasOwn(STORY_TOOL_SCHEMAS, tool);
}

/** The result of a stream whose `done` had none: the chunks joined, in the tool's output shape. */
export function resultFromChunks(tool: string, chunks: readonly string[]): unknown {
  const text = chunks.join('');
  const words = countWords(text);
  if (tool === 'write_story_section') return { content: text, word_count: words, reading_time: readingTime(words) };
  if (tool === 'polish_story') return { polished_content: text, improvements: [], word_count: words };
  return { content: text };
}

/** Checks a story tool's output against its schema (extra fields kept); other tools pass as they are. */
export function checkOutput(scope: { service: string; tool: string }, result: unknown): unknown {
  if (!isStoryTool(scope.tool)) return result;
  const parsed = STORY_TOOL_SCHEMAS[scope.tool].output.safeParse(result);
  if (parsed.success) return parsed.data;
  throw new ToolProtocolError({
    ...scope,
    code: 'invalid_output',
    message: `${scope.service} returned a ${scope.tool} result that does not match its schema: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    details: { issues: parsed.error.issues },
  });
}
