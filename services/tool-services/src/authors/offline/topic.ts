/**
 * Reads a topic (or a title) well enough to write about it: the phrase itself, its key words,
 * the noun phrases worth repeating, and whether it names a kind of person.
 */
import { createRng } from './hash.js';
import { PERSON_NOUNS, SETTINGS, STOPWORDS, TIMES } from './lexicon.js';

export interface TopicInfo {
  /** The topic as written, tidied: "a lighthouse keeper who collects lost letters". */
  phrase: string;
  /** The phrase as a definite subject: "the lighthouse keeper who collects lost letters". */
  subject: string;
  /** Title case without a leading article: "Lighthouse Keeper Who Collects Lost Letters". */
  titleWords: string;
  /** Whether the topic opened with an article, so a title can put "The" back. */
  hadArticle: boolean;
  /** Distinct content words in order, lower case: lighthouse, keeper, collects, lost, letters. */
  keywords: string[];
  /** Noun phrase the story keeps returning to, with "the": "the lost letters". */
  focus: string;
  /** A second noun phrase, the story's ground: "the lighthouse". May equal `focus`. */
  anchor: string;
  /** A kind of person the topic names, with its article: "a lighthouse keeper". */
  personRole?: string;
  /** Where and when: seeded by the title words alone, so the outline (from the topic) and every section (from the story title) agree. */
  place: string;
  time: string;
}

const WORD = /[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu;
const SMALL_TITLE_WORDS = new Set(['a', 'an', 'the', 'and', 'or', 'but', 'nor', 'of', 'in', 'on', 'at', 'to', 'for', 'by', 'with', 'from', 'as']);

const isContent = (word: string): boolean => !STOPWORDS.has(word.toLowerCase()) && word.length > 1;
const isCapitalized = (word: string): boolean => /^\p{Lu}/u.test(word);

/** A title in Title Case says nothing about which of its words are names, so treat them all as common words. */
function normaliseCase(words: string[]): string[] {
  const allCapitalized = words.length > 1 && words.every((w) => isCapitalized(w) || SMALL_TITLE_WORDS.has(w));
  return allCapitalized ? words.map((w) => w.toLowerCase()) : words;
}

/** Maximal runs of adjacent content words: the topic's noun phrases, roughly, without a tagger. */
function contentRuns(words: readonly string[]): string[][] {
  const runs: string[][] = [];
  let current: string[] = [];
  for (const word of words) {
    if (isContent(word)) current.push(word);
    else if (current.length > 0) {
      runs.push(current);
      current = [];
    }
  }
  if (current.length > 0) runs.push(current);
  return runs;
}

export function withArticle(noun: string, article: 'the' | 'a'): string {
  // Proper names ("New Orleans") take no article.
  if (isCapitalized(noun) || /^(the|a|an)\s/iu.test(noun)) return noun;
  if (article === 'the') return `the ${noun}`;
  return /^[aeiou]/iu.test(noun) ? `an ${noun}` : `a ${noun}`;
}

const singular = (word: string): string => (word.endsWith('s') && !word.endsWith('ss') ? word.slice(0, -1) : word);

function findPerson(runs: readonly string[][]): { run: string[]; index: number } | undefined {
  for (const run of runs) {
    const index = run.findIndex(isPersonNoun);
    if (index >= 0) return { run, index };
  }
  return undefined;
}

const isPersonNoun = (word: string): boolean => PERSON_NOUNS.has(word.toLowerCase()) || PERSON_NOUNS.has(singular(word.toLowerCase()));

/**
 * "a robot learning to paint": what the person is doing is the story's subject, and it reads
 * as a noun phrase on its own ("everything about learning to paint").
 */
function activityOf(words: readonly string[]): string | undefined {
  const at = words.findIndex((w, i) => isPersonNoun(w) && /\p{L}{3,}ing$/u.test(words[i + 1] ?? ''));
  return at < 0 ? undefined : words.slice(at + 1, at + 6).join(' ');
}

/** The last two words of a run: "collects lost letters" → "lost letters". Verbs usually come first. */
const tail = (run: readonly string[]): string => run.slice(-2).join(' ');

export function titleCase(phrase: string): string {
  return phrase
    .split(' ')
    .map((w, i) => (i > 0 && SMALL_TITLE_WORDS.has(w.toLowerCase()) ? w.toLowerCase() : w.charAt(0).toUpperCase() + w.slice(1)))
    .join(' ');
}

export function analyzeTopic(raw: string): TopicInfo {
  const squeezed = raw.replace(/\s+/gu, ' ').trim();
  // A topic that is all punctuation ("?") keeps itself rather than becoming empty.
  const phrase = squeezed.replace(/[.!?;:,]+$/u, '') || squeezed || 'untitled story';
  const words = normaliseCase(phrase.match(WORD) ?? []);
  const articleMatch = /^(a|an|the)\s+/iu.exec(phrase);
  const bare = articleMatch ? phrase.slice(articleMatch[0].length) : phrase;
  const runs = contentRuns(words);
  // A topic of only small words or marks ("the", "?") still needs a subject to write about.
  const lastRun = runs.at(-1) ?? ['story'];
  const person = findPerson(runs);

  let anchorNoun = tail(runs[0] ?? lastRun);
  let personRole: string | undefined;
  if (person) {
    const noun = singular(person.run[person.index] ?? '');
    const modifier = person.index > 0 ? person.run[person.index - 1] : undefined;
    personRole = withArticle(modifier ? `${modifier} ${noun}` : noun, 'a');
    // The person becomes the protagonist, so the story's ground is what they are attached to.
    const other = runs.find((r) => r !== person.run);
    anchorNoun = modifier ?? (other ? tail(other) : tail(lastRun));
  }
  const activity = activityOf(words);
  const focus = activity ?? withArticle(person && lastRun === person.run && runs.length > 1 ? tail(runs[0] ?? lastRun) : tail(lastRun), 'the');
  const titleWords = titleCase(bare);
  const setting = createRng('setting', titleWords.toLowerCase());
  const place = setting.pick(SETTINGS);
  const anchor = withArticle(anchorNoun, 'the');

  return {
    phrase,
    subject: articleMatch ? `the ${bare}` : phrase,
    titleWords,
    hadArticle: articleMatch !== null,
    keywords: [...new Set(runs.flat().map((w) => w.toLowerCase()))],
    focus,
    // Two names for one thing make sentences like "between the paint and the truth about the paint".
    anchor: focus.includes(anchorNoun) ? place : anchor,
    ...(personRole ? { personRole } : {}),
    place,
    time: setting.pick(TIMES),
  };
}

