/**
 * Word counting shared by the services that report `word_count` and the client that builds a
 * result from streamed chunks, so both count the same way.
 */

// Han, Hiragana, Katakana and Hangul characters each count as one word: those scripts do not separate words with spaces.
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu;

export function countWords(text: string): number {
  const cjk = text.match(CJK)?.length ?? 0;
  const rest = text.replace(CJK, ' ').split(/\s+/).filter((token) => /[\p{L}\p{N}]/u.test(token)).length;
  return cjk + rest;
}

/** Reading time at 200 words a minute, at least one minute: "3 min". */
export function readingTime(words: number): string {
  return `${Math.max(1, Math.ceil(words / 200))} min`;
}
