/**
 * Words of code for both searches: identifiers are split at camelCase and snake_case boundaries
 * ("chargeCard" → charge, card), lower-cased, stemmed (Porter), and stripped of language keywords
 * and common English words, which would otherwise dominate every chunk.
 */
import { stemmer } from 'stemmer';

const STOPWORDS = new Set(
  [
    // JavaScript / TypeScript
    'abstract async await break case catch class const continue debugger default delete do else enum export extends false finally for from function get if implements import in instanceof interface let new null of private protected public readonly return set static super switch this throw true try type typeof undefined var void while with yield any number string boolean unknown never promise',
    // Python
    'and as assert def del elif except global is lambda nonlocal not or pass raise none self cls',
    // English
    'a an the to it its be by on at or that this these those is are was were so than then there their what which who when where how into out up no we you they them our your',
  ]
    .join(' ')
    .split(' '),
);

/** Splits text into raw words: camelCase, PascalCase, snake_case and kebab-case all come apart. */
export function splitWords(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 1 && !/^\d+$/.test(word));
}

/** The search terms of a text: split words without stopwords, stemmed. */
export function terms(text: string): string[] {
  const out: string[] = [];
  for (const word of splitWords(text)) {
    if (STOPWORDS.has(word)) continue;
    out.push(stemmer(word));
  }
  return out;
}

/** One word as a search term, or null when it is a stopword (MiniSearch's processTerm). */
export function termOf(word: string): string | null {
  const lower = word.toLowerCase();
  return lower.length > 1 && !STOPWORDS.has(lower) ? stemmer(lower) : null;
}

/** A rough token count (about four characters a token), for trimming to a budget. */
export const estimateTokens = (text: string): number => Math.ceil(text.length / 4);
