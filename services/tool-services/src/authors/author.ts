/**
 * Who writes the content behind the four story tools. The offline author is deterministic and
 * needs nothing; the LLM author asks an OpenAI-compatible model through LangChain. The HTTP layer
 * (sync, async, stream, fault knobs) is the same for both.
 */
import type {
  OutlineInput,
  OutlineOutput,
  PolishInput,
  PolishOutput,
  SearchInput,
  SearchOutput,
  StageDocumentInput,
  StageDocumentOutput,
  WriteSectionInput,
  WriteSectionOutput,
} from '@switchyard/contracts';

export interface AuthorCallOptions {
  /** Aborted when the caller goes away or the task is cancelled. */
  signal: AbortSignal;
  /**
   * Called with each piece of text as it is produced, in order. The pieces joined are the
   * final `content` / `polished_content`. Authors that produce text at once may call it once
   * per sentence or paragraph.
   */
  onChunk?: (chunk: string) => void;
}

export interface StoryAuthor {
  /** Short name reported by /health, e.g. "offline" or "llm:gpt-4o-mini". */
  readonly name: string;
  research(input: SearchInput, options: AuthorCallOptions): Promise<SearchOutput>;
  outline(input: OutlineInput, options: AuthorCallOptions): Promise<OutlineOutput>;
  writeSection(input: WriteSectionInput, options: AuthorCallOptions): Promise<WriteSectionOutput>;
  polish(input: PolishInput, options: AuthorCallOptions): Promise<PolishOutput>;
  /** AceFlow stage documents; authors without it leave them to the offline stage writer. */
  writeStageDocument?(input: StageDocumentInput, options: AuthorCallOptions): Promise<StageDocumentOutput>;
}
