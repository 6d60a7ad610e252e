/**
 * The four story tools as the services publish them: name, description, input schema (zod,
 * published as JSON Schema on /tools) and which author method runs them.
 */
import { z } from 'zod';
import {
  OutlineInput,
  PolishInput,
  SearchInput,
  STAGE_DOCUMENT_TOOL,
  StageDocumentInput,
  WriteSectionInput,
  type ToolServiceKey,
} from '@switchyard/contracts';
import type { AuthorCallOptions, StoryAuthor } from './authors/author.js';
import { stageDocumentChunks, writeStageDocument } from './authors/offline/stage-document.js';

export interface ToolDefinition {
  name: string;
  description: string;
  input: z.ZodType;
  /** Whether the tool produces text chunks worth streaming as `content` events. */
  streamsContent: boolean;
  run(author: StoryAuthor, input: unknown, options: AuthorCallOptions): Promise<unknown>;
}

function define<S extends z.ZodType>(tool: {
  name: string;
  description: string;
  input: S;
  streamsContent: boolean;
  run: (author: StoryAuthor, input: z.output<S>, options: AuthorCallOptions) => Promise<unknown>;
}): ToolDefinition {
  return { ...tool, run: (author, input, options) => tool.run(author, input as z.output<S>, options) };
}

export const STORY_TOOLS: Record<ToolServiceKey, ToolDefinition> = {
  search: define({
    name: 'search_relevant_information',
    description: 'Finds material relevant to a story topic: titled snippets ranked by relevance.',
    input: SearchInput,
    streamsContent: false,
    run: (author, input, options) => author.research(input, options),
  }),
  outline: define({
    name: 'generate_structured_outline',
    description: 'Turns a topic and research into a four-part outline: introduction, development, climax, conclusion.',
    input: OutlineInput,
    streamsContent: false,
    run: (author, input, options) => author.outline(input, options),
  }),
  writing: define({
    name: 'write_story_section',
    description: 'Writes one section of a story from its outline, in the requested style.',
    input: WriteSectionInput,
    streamsContent: true,
    run: (author, input, options) => author.writeSection(input, options),
  }),
  editing: define({
    name: 'polish_story',
    description: 'Polishes a full draft for the given focus areas and audience, and reports the improvements made.',
    input: PolishInput,
    streamsContent: true,
    run: (author, input, options) => author.polish(input, options),
  }),
};

/**
 * The AceFlow stage writer, hosted by the writing service beside write_story_section. The offline
 * writer fills the template; its chunks are paragraphs, streamed like a section's sentences.
 */
export const STAGE_DOCUMENT: ToolDefinition = define({
  name: STAGE_DOCUMENT_TOOL,
  description: 'Writes one AceFlow stage document from its template, the project analysis, earlier stages and feedback on a previous draft.',
  input: StageDocumentInput,
  streamsContent: true,
  run: async (author, input, options) => {
    if (author.writeStageDocument) return author.writeStageDocument(input, options);
    options.signal.throwIfAborted();
    const output = writeStageDocument(input);
    for (const chunk of stageDocumentChunks(output.content)) options.onChunk?.(chunk);
    return output;
  },
});

/** The tools each reference service hosts. */
export const SERVICE_TOOLS: Record<ToolServiceKey, readonly ToolDefinition[]> = {
  search: [STORY_TOOLS.search],
  outline: [STORY_TOOLS.outline],
  writing: [STORY_TOOLS.writing, STAGE_DOCUMENT],
  editing: [STORY_TOOLS.editing],
};

/** JSON Schema of a tool's input as published on `GET /tools`. */
export function publishedInputSchema(tool: ToolDefinition): Record<string, unknown> {
  const schema = z.toJSONSchema(tool.input, { io: 'input', target: 'draft-7' }) as Record<string, unknown>;
  return schema;
}
