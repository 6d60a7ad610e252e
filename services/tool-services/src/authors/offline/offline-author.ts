/**
 * The author that needs nothing: no network, no model, no clock. Same input, same bytes out,
 * which is what lets tests and demos of the pipeline compare whole results.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { AuthorCallOptions, StoryAuthor } from '../author.js';
import { outline } from './outline.js';
import { polish } from './polish.js';
import { research } from './research.js';
import { writeSection } from './section.js';
import { splitIntoChunks } from './text.js';

/**
 * Hands the text over sentence by sentence, as a streaming model would, stopping if the caller
 * leaves. Yielding a turn between pieces lets the HTTP layer write each one as it comes and
 * lets an abort from outside land between pieces.
 */
async function emit(text: string, options: AuthorCallOptions): Promise<void> {
  if (!options.onChunk) return;
  for (const chunk of splitIntoChunks(text)) {
    options.signal.throwIfAborted();
    options.onChunk(chunk);
    await nextTurn();
  }
}

export function createOfflineAuthor(): StoryAuthor {
  return {
    name: 'offline',
    async research(input, options) {
      options.signal.throwIfAborted();
      return research(input);
    },
    async outline(input, options) {
      options.signal.throwIfAborted();
      return outline(input);
    },
    async writeSection(input, options) {
      options.signal.throwIfAborted();
      const result = writeSection(input);
      await emit(result.content, options);
      return result;
    },
    async polish(input, options) {
      options.signal.throwIfAborted();
      const result = polish(input);
      await emit(result.polished_content, options);
      return result;
    },
  };
}
