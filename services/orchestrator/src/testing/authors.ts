/**
 * Authors for tests: the offline author, with every call counted and a hook per method that may
 * hold a call, fail it, or watch its abort signal.
 */
import type { StageDocumentInput, StageDocumentOutput } from '@switchyard/contracts';
import type { AuthorCallOptions, StoryAuthor } from '@switchyard/tool-services';
import { createOfflineAuthor, stageDocumentChunks, writeStageDocument } from '@switchyard/tool-services';

type Method = 'research' | 'outline' | 'writeSection' | 'polish' | 'writeStageDocument';
/** Runs before the offline author; may throw, or wait (e.g. until `options.signal` aborts). */
export type AuthorHook = (input: Record<string, unknown>, options: AuthorCallOptions) => Promise<void> | void;

/** Rewrites a stage document before it is streamed, e.g. to leave a section out. */
export type StageDocumentEdit = (input: StageDocumentInput, output: StageDocumentOutput) => StageDocumentOutput;

export interface CountingAuthor extends StoryAuthor {
  calls: Record<Method, number>;
  hooks: Partial<Record<Method, AuthorHook>>;
  /** Stage ids in the order their documents were written. */
  stageDocuments: string[];
  editStageDocument?: StageDocumentEdit | undefined;
}

export function countingAuthor(): CountingAuthor {
  const offline = createOfflineAuthor();
  const calls: Record<Method, number> = { research: 0, outline: 0, writeSection: 0, polish: 0, writeStageDocument: 0 };
  const stageDocuments: string[] = [];
  const hooks: Partial<Record<Method, AuthorHook>> = {};
  const wrap =
    <I, O>(method: Method, run: (input: I, options: AuthorCallOptions) => Promise<O>) =>
    async (input: I, options: AuthorCallOptions): Promise<O> => {
      calls[method] += 1;
      await hooks[method]?.(input as Record<string, unknown>, options);
      return run(input, options);
    };
  const author: CountingAuthor = {
    name: 'counting',
    calls,
    hooks,
    stageDocuments,
    research: wrap('research', (i, o) => offline.research(i, o)),
    outline: wrap('outline', (i, o) => offline.outline(i, o)),
    writeSection: wrap('writeSection', (i, o) => offline.writeSection(i, o)),
    polish: wrap('polish', (i, o) => offline.polish(i, o)),
    writeStageDocument: wrap('writeStageDocument', async (input: StageDocumentInput, options: AuthorCallOptions) => {
      stageDocuments.push(input.stage);
      const written = writeStageDocument(input);
      const output = author.editStageDocument ? author.editStageDocument(input, written) : written;
      for (const chunk of stageDocumentChunks(output.content)) options.onChunk?.(chunk);
      return output;
    }),
  };
  return author;
}

/** Resolves when `signal` aborts. */
export function untilAborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
}
