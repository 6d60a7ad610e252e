/**
 * The edits polish makes, one function per kind. Each returns the new text and how many places
 * it changed, so the improvements report counts real edits rather than guesses.
 */
import { fnv1a } from './hash.js';
import { STOPWORDS } from './lexicon.js';
import { capitalize, countWords, splitIntoChunks } from './text.js';

export interface Edit {
  text: string;
  count: number;
}

/** Runs a global replace and counts the matches that actually changed something. */
function counted(text: string, pattern: RegExp, replace: (match: string, ...groups: string[]) => string): Edit {
  let count = 0;
  const out = text.replace(pattern, (match: string, ...rest: unknown[]) => {
    // replace() passes the groups, then the offset and the whole input; unmatched groups arrive as undefined.
    const groups = rest.slice(0, -2).map((g) => (typeof g === 'string' ? g : ''));
    const next = replace(match, ...groups);
    if (next !== match) count += 1;
    return next;
  });
  return { text: out, count };
}

/** Applies steps in order, adding up their counts. */
function chain(text: string, steps: readonly ((t: string) => Edit)[]): Edit {
  return steps.reduce<Edit>((acc, step) => {
    const next = step(acc.text);
    return { text: next.text, count: acc.count + next.count };
  }, { text, count: 0 });
}

/** Paragraph breaks survive: only runs within a line, line ends and extra blank lines change. */
export function collapseWhitespace(text: string): Edit {
  return chain(text, [
    (t) => counted(t, /^\s+|\s+$/gu, () => ''),
    (t) => counted(t, /[ \t]+$/gmu, () => ''),
    (t) => counted(t, /^[ \t]+/gmu, () => ''),
    (t) => counted(t, /[ \t]{2,}|\t/gu, () => ' '),
    (t) => counted(t, /\n{3,}/gu, () => '\n\n'),
  ]);
}

export function fixPunctuationSpacing(text: string): Edit {
  return chain(text, [
    // "word ," → "word,"; a space before ".5" or an ellipsis may be meant.
    (t) => counted(t, / +([,.;:!?])(?![\d.])/gu, (_m, mark = '') => mark),
    // "word,next" → "word, next"; digits ("10:30") and URLs ("https://") are left alone.
    (t) => counted(t, /([,;:])(?=\p{L})/gu, (_m, mark = '') => `${mark} `),
    // "end.Next" → "end. Next", but not "e.g.The" or "U.S.", whose word before the stop is one letter.
    (t) => counted(t, /(\p{Ll}{2,}[.!?])(?=\p{Lu}\p{Ll})/gu, (_m, end = '') => `${end} `),
  ]);
}

/** Doubled words that English uses on purpose. */
const MEANT_TWICE = new Set(['had', 'that', 'bye', 'ha', 'hee', 'ho', 'no', 'so', 'knock', 'tut', 'boo', 'la', 'very', 'far', 'on', 'over', 'round', 'again', 'more']);

export function removeRepeatedWords(text: string): Edit {
  const pattern = /(?<![\p{L}\p{N}'’-])(\p{L}+)[ \t]+\1(?![\p{L}\p{N}'’-])/giu;
  let total = 0;
  let current = text;
  // "the the the" needs two passes: each pass removes one copy of each doubled pair.
  for (;;) {
    const edit = counted(current, pattern, (match, word = '') => (MEANT_TWICE.has(word.toLowerCase()) ? match : word));
    if (edit.count === 0) return { text: current, count: total };
    total += edit.count;
    current = edit.text;
  }
}

/** Whether a word is said with a leading vowel sound: "an hour", "an umbrella", but "a unicorn". */
function takesAn(word: string): boolean | undefined {
  const lower = word.toLowerCase();
  // Letters, acronyms and "X-ray" are said by their letter names, which spelling cannot tell.
  if (word.length < 2 || word === word.toUpperCase() || word.charAt(1) === '-') return undefined;
  if (/^(hour|honest|honou?r|heir)/u.test(lower)) return true;
  if (lower.startsWith('h')) return undefined; // "a/an historic" are both in use
  if (/^(one|once|uni|us[eu]|uti|ur[aeiou]|ubi|eu|ewe)/u.test(lower)) return false;
  return /^[aeiou]/u.test(lower);
}

export function fixArticles(text: string): Edit {
  // Capitalised "A" only at a sentence start, so "Plan A is" is not touched.
  return counted(text, /(^|[.!?]\s+|[^\p{L}\p{N}'’.!?-])(a|an|A|An)(\s+)(\p{L}[\p{L}'’-]*)/gmu, (match, before = '', article = '', space = '', word = '') => {
    if (/^A/u.test(article) && !/^$|[.!?]\s+$/u.test(before)) return match;
    const wantsAn = takesAn(word);
    // "an Xbox", "an NHS" read fine aloud; only lower-case words are safe to change to "a".
    if (wantsAn === undefined || (!wantsAn && /^\p{Lu}/u.test(word))) return match;
    const fixed = wantsAn ? 'an' : 'a';
    const cased = /^A/u.test(article) ? capitalize(fixed) : fixed;
    return `${before}${cased}${space}${word}`;
  });
}

const ABBREVIATIONS = new Set(['etc', 'vs', 'al', 'approx', 'ca', 'cf', 'incl', 'no', 'st', 'dr', 'mr', 'mrs', 'ms', 'jr', 'sr', 'eg', 'ie']);

export function capitalizeSentences(text: string): Edit {
  return chain(text, [
    (t) => counted(t, /(^|\n\n)(\p{Ll})/gu, (_m, start = '', letter = '') => `${start}${letter.toUpperCase()}`),
    (t) =>
      counted(t, /([\p{L}\p{N}]*)([.!?]+)(["'”’)]?\s+)(\p{Ll})/gu, (match, word = '', stop = '', gap = '', letter = '') => {
        // An ellipsis trails off on purpose; abbreviations and initials do not end sentences;
        // and after a closing quote comes a dialogue tag ("Wait!" she said), lower case by rule.
        if (stop.length > 1 && stop.startsWith('.')) return match;
        if (/^["'”’)]/u.test(gap)) return match;
        if (stop === '.' && (word.length < 2 || ABBREVIATIONS.has(word.toLowerCase()))) return match;
        return `${word}${stop}${gap}${letter.toUpperCase()}`;
      }),
    (t) => counted(t, /(?<![\p{L}\p{N}'’-])i(?=(?:['’](?:m|d|ll|ve))?(?![\p{L}\p{N}'’.-]))/gu, () => 'I'),
  ]);
}

/** Words that are names and ordinary words both; a lower-case one may well be the ordinary word. */
const AMBIGUOUS_NAMES = new Set(['will', 'rose', 'mark', 'hope', 'grace', 'faith', 'joy', 'may', 'june', 'april', 'august', 'bill', 'pat', 'rob', 'jack', 'frank', 'art', 'dawn', 'summer', 'iris', 'lily', 'ruby', 'amber', 'hunter', 'mason', 'sky', 'river', 'storm', 'ivy', 'wren', 'heather', 'holly', 'rusty', 'sandy', 'penny', 'miles', 'chase', 'glen', 'don', 'sue',
  // Titles and kin are capitalised when used as a name ("Mother said") and not otherwise ("my mother").
  'mother', 'father', 'mum', 'mom', 'dad', 'grandma', 'grandpa', 'aunt', 'uncle', 'god', 'heaven', 'north', 'south', 'east', 'west',
  'king', 'queen', 'captain', 'doctor', 'sir', 'madam', 'lord', 'lady', 'professor', 'keeper', 'master']);

/**
 * Names the draft itself capitalises mid-sentence at least twice. Headings (no sentence
 * punctuation, or a leading '#') are skipped: Title Case there says nothing about names.
 */
export function namesIn(text: string): Set<string> {
  const tally = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line.trimStart().startsWith('#') || !/[.!?]/u.test(line)) continue;
    for (const match of line.matchAll(/(?<![\p{L}\p{N}'’-])\p{Lu}\p{Ll}{2,}(?![\p{L}\p{N}])/gu)) {
      const before = line.slice(0, match.index).trimEnd();
      if (before === '' || /[.!?"“”:—]$/u.test(before)) continue; // sentence starts prove nothing
      tally.set(match[0], (tally.get(match[0]) ?? 0) + 1);
    }
  }
  const lowerOk = (w: string) => !STOPWORDS.has(w.toLowerCase()) && !AMBIGUOUS_NAMES.has(w.toLowerCase());
  return new Set([...tally].filter(([word, n]) => n >= 2 && lowerOk(word)).map(([word]) => word));
}

/** "mara" → "Mara" wherever the draft has shown Mara is a name. */
export function fixNameCase(text: string): Edit {
  return [...namesIn(text)].reduce<Edit>((acc, name) => {
    const lower = name.toLowerCase();
    const edit = counted(acc.text, new RegExp(`(?<![\\p{L}\\p{N}'’-])${lower}(?![\\p{L}\\p{N}-])`, 'gu'), () => name);
    return { text: edit.text, count: acc.count + edit.count };
  }, { text, count: 0 });
}

/** Applies `edit` to each sentence of each paragraph, keeping every separator byte as it was. */
function perSentence(text: string, edit: (sentences: string[]) => Edit): Edit {
  let count = 0;
  const out = text
    .split(/(\n{2,})/u)
    .map((part) => {
      if (/^\n+$/u.test(part)) return part;
      const result = edit(splitIntoChunks(part));
      count += result.count;
      return result.text;
    })
    .join('');
  return { text: out, count };
}

/** Splits a sentence at the conjunction nearest its middle, leaving at least six words each side. */
function splitOnce(sentence: string): [string, string] | undefined {
  const cuts = [...sentence.matchAll(/[,;]\s+(and|but|so|yet|then)\s+|;\s+/gu)];
  const middle = sentence.length / 2;
  const usable = cuts.filter((m) => countWords(sentence.slice(0, m.index)) >= 6 && countWords(sentence.slice(m.index + m[0].length)) >= 6);
  const best = usable.sort((a, b) => Math.abs(a.index - middle) - Math.abs(b.index - middle))[0];
  if (!best) return undefined;
  // "and" adds nothing once the sentences are apart; "but", "so", "yet" and "then" carry meaning.
  const conjunction = best[1] && best[1] !== 'and' ? `${best[1]} ` : '';
  return [`${sentence.slice(0, best.index)}. `, capitalize(conjunction + sentence.slice(best.index + best[0].length))];
}

export function splitLongSentences(text: string, maxWords: number): Edit {
  return perSentence(text, (sentences) => {
    let count = 0;
    const split = (sentence: string): string => {
      if (countWords(sentence) <= maxWords) return sentence;
      const parts = splitOnce(sentence);
      if (!parts) return sentence;
      count += 1;
      return split(parts[0]) + split(parts[1]);
    };
    return { text: sentences.map(split).join(''), count };
  });
}

const TRANSITIONS = ['Then', 'After that', 'Soon', 'In time', 'Before long'];

/** In a run of three or more sentences opening on the same word, every third gets a transition. */
export function varyOpeners(text: string): Edit {
  return perSentence(text, (sentences) => {
    let count = 0;
    let previous = '';
    let run = 0;
    const out = sentences.map((sentence) => {
      const first = /^\p{L}+/u.exec(sentence)?.[0] ?? '';
      run = first !== '' && first.toLowerCase() === previous ? run + 1 : 0;
      previous = first.toLowerCase();
      if (run % 3 !== 2) return sentence;
      count += 1;
      const transition = TRANSITIONS[fnv1a(sentence) % TRANSITIONS.length] ?? 'Then';
      // Pronouns and articles go lower case after the transition; names keep their capital.
      const rest = first !== 'I' && STOPWORDS.has(first.toLowerCase()) ? sentence.charAt(0).toLowerCase() + sentence.slice(1) : sentence;
      return `${transition} ${rest}`;
    });
    return { text: out.join(''), count };
  });
}
