/**
 * Words, the offline model's unit for matching tools and counting tokens: a token is a run of
 * non-space characters, so `usage` is the word count of what was read and what was written.
 */

const STOPWORDS = new Set(
  'the a an and or but of to in on at by for with from about into over under is are was were be been being this that these those it its as do does did have has had can could would should will shall may might must please me my we our you your i he she they them their his her what which who whom how why when where there here then than so if not no yes some any all each every more most just also very give tell show find get make write call use using need want like'.split(' '),
);

/** Tokens of a text, as counted in `usage`. */
export function countTokens(text: string): number {
  const trimmed = text.trim();
  return trimmed === '' ? 0 : trimmed.split(/\s+/).length;
}

/** Lower-case words of a text, letters and digits only, split at camelCase, `_` and `-` too. */
export function wordsOf(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 0);
}

/** The words that carry meaning: three letters or more, not a stopword. */
export function contentWords(text: string): string[] {
  return wordsOf(text).filter((word) => word.length >= 3 && !STOPWORDS.has(word));
}

/** Two words match when equal or when one begins the other and the shorter has four letters or more (search/searching). */
export function wordsMatch(a: string, b: string): boolean {
  if (a === b) return true;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  return short.length >= 4 && long.startsWith(short);
}

/**
 * The topic of a prompt: what follows its first "about", else its first "on", "for" or "regarding",
 * when that holds a content word; else the whole prompt. Trailing punctuation dropped, at most 12 words.
 */
export function topicOf(prompt: string): string {
  const flat = prompt.replace(/\s+/g, ' ').trim();
  const after = /\babout\s+(.+)$/i.exec(flat)?.[1] ?? /\b(?:on|for|regarding)\s+(.+)$/i.exec(flat)?.[1];
  // "Roll dice for me": what follows says nothing, so the whole prompt is the topic.
  const chosen = after !== undefined && contentWords(after).length > 0 ? after : flat;
  const words = chosen.split(' ').slice(0, 12).join(' ');
  return words.replace(/[\s.?!,;:]+$/u, '') || 'the request';
}
