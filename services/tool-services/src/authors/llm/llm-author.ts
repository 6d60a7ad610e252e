/**
 * The LLM author: an OpenAI-compatible chat model writes the story tools' content through
 * LangChain. Structured replies (research, outline, polish) are asked for as plain JSON and checked
 * with the contracts' zod schemas, with one repair round; sections and AceFlow stage documents are
 * streamed token by token.
 */
import { ChatOpenAICompletions } from '@langchain/openai';
import type { BaseMessageLike } from '@langchain/core/messages';
import { z } from 'zod';
import { OutlineOutput, SearchOutput, countWords, readingTime } from '@switchyard/contracts';
import type {
  OutlineInput,
  PolishInput,
  PolishOutput,
  SearchInput,
  StageDocumentInput,
  StageDocumentOutput,
  WriteSectionInput,
  WriteSectionOutput,
} from '@switchyard/contracts';
import type { AuthorCallOptions, StoryAuthor } from '../author.js';
import { stageDocumentPrompt } from './stage-document-prompt.js';

export interface LlmAuthorOptions {
  /** Base URL of the OpenAI-compatible API, including the version path, e.g. `http://127.0.0.1:11434/v1`. Required. */
  baseUrl: string;
  /** Model name sent with every request, e.g. `gpt-4o-mini`. Required. */
  model: string;
  /** Bearer key for the endpoint. Default: a placeholder, which local servers (Ollama, vLLM, ...) accept. */
  apiKey?: string;
  /** Sampling temperature. Default: `0.7`. */
  temperature?: number;
  /** Time limit of one model request, in milliseconds. Default: `120000`. */
  timeoutMs?: number;
}

/** What polish asks the model for; the word count is computed here, not trusted from the model. */
const PolishReply = z.looseObject({
  polished_content: z.string().min(1),
  improvements: z.array(z.looseObject({ type: z.string(), count: z.number().int().nonnegative() })),
});

const SYSTEM = 'You are a skilled fiction writer and editor helping to build a short story step by step.';
const DOCUMENT_SYSTEM = 'You are a senior software engineer writing one document of a project\'s engineering pipeline, precise and specific to the project.';
const JSON_RULES = 'Reply with one JSON object only: no prose, no Markdown code fences.';

export function createLlmAuthor(options: LlmAuthorOptions): StoryAuthor {
  const model = new ChatOpenAICompletions({
    model: options.model,
    apiKey: options.apiKey ?? 'not-needed',
    configuration: { baseURL: options.baseUrl },
    temperature: options.temperature ?? 0.7,
    timeout: options.timeoutMs ?? 120_000,
    maxRetries: 1, // LangChain's default is 6 retries with backoff; one is enough for a transient 5xx.
    streamUsage: false,
  });

  async function askJson<S extends z.ZodType>(what: string, schema: S, prompt: string, signal: AbortSignal): Promise<z.output<S>> {
    const messages: BaseMessageLike[] = [
      ['system', SYSTEM],
      ['human', `${prompt}\n\n${JSON_RULES}`],
    ];
    let problem = '';
    for (let attempt = 1; attempt <= 2; attempt += 1) {
      const reply = await model.invoke(messages, { signal });
      const text = reply.text;
      const parsed = parseJson(text, schema);
      if (parsed.ok) return parsed.value;
      problem = parsed.error;
      messages.push(['ai', text], [
        'human',
        `That reply is not valid: ${problem}\nSend the corrected JSON object only, with exactly the shape asked for.`,
      ]);
    }
    throw new Error(`The model's reply for the ${what} did not match the expected JSON shape after a retry: ${problem}`);
  }

  /** Streams the model's answer to `prompt`, each piece to `onChunk`; the pieces joined, never empty. */
  async function streamText(request: { what: string; system: string; prompt: string }, { signal, onChunk }: AuthorCallOptions): Promise<string> {
    const pieces: string[] = [];
    const stream = await model.stream([['system', request.system], ['human', request.prompt]], { signal });
    for await (const chunk of stream) {
      const text = chunk.text;
      if (!text) continue;
      pieces.push(text);
      onChunk?.(text);
    }
    signal.throwIfAborted();
    const content = pieces.join('');
    if (!content.trim()) throw new Error(`The model returned no text for the ${request.what}.`);
    return content;
  }

  return {
    name: `llm:${options.model}`,

    async research(input: SearchInput, { signal }: AuthorCallOptions) {
      const prompt = [
        `Research the story topic "${input.topic}" (kind of material wanted: ${input.type}).`,
        `Give ${input.depth} distinct facets a writer could draw on: setting, history, people, sensory details, conflicts.`,
        'Shape: {"results": [{"title": string, "snippet": string (2-3 sentences), "relevance": number between 0 and 1}],',
        ' "metadata": {"total_results": integer, "filtered_results": integer}}.',
        `Sort results by relevance, highest first; both metadata counts equal the number of results.`,
      ].join('\n');
      return askJson('research', SearchOutput, prompt, signal);
    },

    async outline(input: OutlineInput, { signal }: AuthorCallOptions) {
      const research = input.research.map((item) => `- ${item.title}: ${item.content}`).join('\n');
      const prompt = [
        `Write a story outline about "${input.topic}" (structure: ${input.structure}).`,
        research ? `Research to use:\n${research}` : 'No research was provided.',
        'Shape: {"title": string, "sections": {',
        ' "introduction": {"title": string, "key_points": [string, ...], "characters": [string, ...]},',
        ' "development": {"title": string, "key_points": [string, ...], "conflict": string},',
        ' "climax": {"title": string, "key_points": [string, ...], "resolution_setup": string},',
        ' "conclusion": {"title": string, "key_points": [string, ...], "theme": string}}}.',
        'Give every section 2-4 key points.',
      ].join('\n');
      return askJson('outline', OutlineOutput, prompt, signal);
    },

    async writeSection(input: WriteSectionInput, options: AuthorCallOptions): Promise<WriteSectionOutput> {
      const content = await streamText({ what: `${input.section_name} section`, system: SYSTEM, prompt: sectionPrompt(input) }, options);
      const words = countWords(content);
      return { content, word_count: words, reading_time: readingTime(words) };
    },

    async writeStageDocument(input: StageDocumentInput, options: AuthorCallOptions): Promise<StageDocumentOutput> {
      const content = await streamText({ what: `${input.stage} document`, system: DOCUMENT_SYSTEM, prompt: stageDocumentPrompt(input) }, options);
      return { content, word_count: countWords(content) };
    },

    async polish(input: PolishInput, { signal }: AuthorCallOptions): Promise<PolishOutput> {
      const prompt = [
        `Polish this story draft for a ${input.target_audience} audience, focusing on: ${input.focus_areas.join(', ')}.`,
        'Keep the plot, names and overall length; improve the prose.',
        'Shape: {"polished_content": string (the full polished story),',
        ' "improvements": [{"type": string (one of the focus areas), "count": integer (how many changes of that kind)}]}.',
        `Draft:\n"""\n${input.draft}\n"""`,
      ].join('\n');
      const reply = await askJson('polish', PolishReply, prompt, signal);
      return { ...reply, word_count: countWords(reply.polished_content) };
    },
  };
}

function sectionPrompt(input: WriteSectionInput): string {
  const { outline } = input;
  const characters = [...new Set([...(input.characters ?? []), ...(outline.characters ?? [])])];
  const lines = [
    `Write the ${input.section_name} section of the story${input.story_title ? ` "${input.story_title}"` : ''}.`,
    `Section title: ${outline.title}`,
    `Key points to cover:\n${outline.key_points.map((point) => `- ${point}`).join('\n')}`,
  ];
  if (characters.length > 0) lines.push(`Characters: ${characters.join(', ')}`);
  if (outline.conflict) lines.push(`Conflict: ${outline.conflict}`);
  if (outline.resolution_setup) lines.push(`Resolution setup: ${outline.resolution_setup}`);
  if (outline.theme) lines.push(`Theme: ${outline.theme}`);
  lines.push(
    `Style: ${input.style}.`,
    'Write 3-5 paragraphs of finished prose. Output only the section text: no heading, no notes.',
  );
  return lines.join('\n');
}

type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

/** Parses the model's reply as JSON (tolerating code fences or prose around one object) and checks it. */
function parseJson<S extends z.ZodType>(text: string, schema: S): Parsed<z.output<S>> {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(text)?.[1];
  let candidate = (fenced ?? text).trim();
  const start = candidate.indexOf('{');
  const end = candidate.lastIndexOf('}');
  if (start >= 0 && end > start) candidate = candidate.slice(start, end + 1);
  let json: unknown;
  try {
    json = JSON.parse(candidate);
  } catch (error) {
    return { ok: false, error: `it is not JSON (${error instanceof Error ? error.message : String(error)})` };
  }
  const result = schema.safeParse(json);
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, error: z.prettifyError(result.error) };
}
