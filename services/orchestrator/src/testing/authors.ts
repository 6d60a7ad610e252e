/**
 * Authors for tests: the offline author, with every call counted and a hook per method that may
 * hold a call, fail it, or watch its abort signal.
 */
import type { AuthorCallOptions, StoryAuthor } from '@switchyard/tool-services';
import { createOfflineAuthor } from '@switchyard/tool-services';

type Method = 'research' | 'outline' | 'writeSection' | 'polish';
/** Runs before the offline author; may throw, or wait (e.g. until `options.signal` aborts). */
export type AuthorHook = (input: Record<string, unknown>, options: AuthorCallOptions) => Promise<void> | void;

export interface CountingAuthor extends StoryAuthor {
  calls: Record<Method, number>;
  hooks: Partial<Record<Method, AuthorHook>>;
}

export function countingAuthor(): CountingAuthor {
  const offline = createOfflineAuthor();
  const calls: Record<Method, number> = { research: 0, outline: 0, writeSection: 0, polish: 0 };
  const hooks: Partial<Record<Method, AuthorHook>> = {};
  const wrap =
    <I, O>(method: Method, run: (input: I, options: AuthorCallOptions) => Promise<O>) =>
    async (input: I, options: AuthorCallOptions): Promise<O> => {
      calls[method] += 1;
      await hooks[method]?.(input as Record<string, unknown>, options);
      return run(input, options);
    };
  return {
    name: 'counting',
    calls,
    hooks,
    research: wrap('research', (i, o) => offline.research(i, o)),
    outline: wrap('outline', (i, o) => offline.outline(i, o)),
    writeSection: wrap('writeSection', (i, o) => offline.writeSection(i, o)),
    polish: wrap('polish', (i, o) => offline.polish(i, o)),
  };
}

/** Resolves when `signal` aborts. */
export function untilAborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
}
