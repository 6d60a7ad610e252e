/**
 * Text helpers. Word counting comes from the contracts package so the service's `word_count`
 * and the client's count of streamed chunks can never disagree.
 */
import { countWords, readingTime } from '@switchyard/contracts';
import { STOPWORDS } from './lexicon.js';

export { countWords, readingTime };

/**
 * A piece runs up to and including sentence-ending punctuation (with any closing quotes or
 * brackets) or a line break, then takes the whitespace after it. Every position of a non-empty
 * remainder matches at least one character, so the pieces tile the text exactly.
 */
const PIECE = /[^.!?…\n]*(?:[.!?…]+["'”’)\]]*|\n)?\s*/gu;

/** Sentence-sized pieces that, joined with '', give back exactly `text`. */
export function splitIntoChunks(text: string): string[] {
  return (text.match(PIECE) ?? []).filter((piece) => piece.length > 0);
}

/** Splits on blank lines, the paragraph separator every generated section uses. */
export function paragraphsOf(text: string): string[] {
  return text.split(/\n{2,}/u);
}

export function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Replaces `{name}` placeholders; an unknown placeholder is a table bug, so it fails loudly. */
export function fill(template: string, vars: Readonly<Record<string, string>>): string {
  return template.replace(/\{(\w+)\}/gu, (_, key: string) => {
    const value = vars[key];
    if (value === undefined) throw new Error(`no value for {${key}} in "${template}"`);
    return value;
  });
}

/** Joins phrases the English way: "a", "a and b", "a, b and c". */
export function listOf(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1) ?? ''}`;
}

/**
 * Lower-cases the first letter of a sentence-case phrase so it reads mid-sentence. Phrases with
 * other capitals ("Royal Mail history"), acronyms, "I" and known names keep theirs.
 */
export function inlineCase(text: string, names: ReadonlySet<string> = new Set()): string {
  const words = text.split(/\s+/u);
  const stem = (word: string) => word.replace(/[^\p{L}\p{N}'’-]/gu, '').replace(/['’]s$/u, '');
  const first = stem(words[0] ?? '');
  // Known names further on say nothing about whether the first word is one.
  const restLower = words.slice(1).every((w) => !/^\p{Lu}/u.test(w) || names.has(stem(w)));
  const isAcronym = first.length > 1 && first === first.toUpperCase();
  const keep = !restLower || isAcronym || first === 'I' || names.has(first);
  return keep ? text : text.charAt(0).toLowerCase() + text.slice(1);
}

/** Sentence openers that are never names, so lower-casing them mid-sentence is always right. */
const COMMON_OPENERS = new Set(['everything', 'nothing', 'something', 'someone', 'everyone', 'nobody', 'anyone', 'another', 'both', 'neither', 'either', 'none']);

/**
 * For a clause set after a colon: lower-cases only a first word that cannot be a name ("The
 * lamp fails" → "the lamp fails"); anything else keeps its capital ("Bob finds the key"), which
 * English allows after a colon.
 */
export function clauseCase(text: string): string {
  const first = /^\p{L}+/u.exec(text)?.[0] ?? '';
  const lower = first.toLowerCase();
  const safe = first !== 'I' && (STOPWORDS.has(lower) || COMMON_OPENERS.has(lower));
  return safe ? text.charAt(0).toLowerCase() + text.slice(1) : text;
}
