/**
 * How relevant each SOP step is to a requirement, for pre_analyze: TF-IDF vectors over each
 * step's name, stage, description and rules, compared with the requirement by cosine similarity,
 * so a score is in 0–1 and 1 means the same weighted terms. Chinese has no spaces, so it is cut
 * into overlapping character pairs (bigrams); other text into lower-case words.
 */
import type { SopStep } from './domain.js';

const ENGLISH_STOPWORDS = new Set(
  'a an and are as at be by can do for from has have i in into is it its need needs of on or our should so that the their then this to use we will with want you your'.split(' '),
);
/** Function characters that join Chinese words; a bigram across one of them is noise. */
const CHINESE_STOP_CHARS = /[的了和与及或是我你们这那请把个]/u;
const HAN = /\p{Script=Han}/u;

/** A light stemmer, enough for deploy/deployment/deployed or story/stories to meet. */
function stem(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  const singular = word.length > 3 && word.endsWith('s') && !word.endsWith('ss') ? word.slice(0, -1) : word;
  for (const suffix of ['ment', 'ing', 'ed']) {
    if (singular.length > suffix.length + 3 && singular.endsWith(suffix)) return singular.slice(0, -suffix.length);
  }
  return singular;
}

/** The terms of a text: lower-case stemmed words and Chinese character bigrams. */
export function tokenize(text: string): string[] {
  const terms: string[] = [];
  for (const run of text.toLowerCase().match(/\p{Script=Han}+|[\p{L}\p{N}]+/gu) ?? []) {
    if (HAN.test(run)) {
      for (const segment of run.split(CHINESE_STOP_CHARS)) {
        const chars = [...segment];
        if (chars.length === 1) terms.push(segment);
        for (let i = 0; i + 1 < chars.length; i += 1) terms.push(`${chars[i]}${chars[i + 1]}`);
      }
    } else if (run.length > 1 && !ENGLISH_STOPWORDS.has(run)) {
      terms.push(stem(run));
    }
  }
  return terms;
}

export interface StepMatch {
  step: SopStep;
  /** Cosine similarity of the TF-IDF vectors, rounded to three decimals. */
  score: number;
  /** The shared terms that weigh most, heaviest first. */
  matchedTerms: string[];
}

type Vector = Map<string, number>;

const stepText = (step: SopStep) => [step.name, step.name, step.stage, step.description, ...step.rules].join('\n');

function termCounts(terms: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
  return counts;
}

function weigh(counts: Map<string, number>, idf: Map<string, number>): Vector {
  const vector: Vector = new Map();
  for (const [term, count] of counts) {
    const weight = idf.get(term);
    // Terms no step uses say nothing about which step fits, so they are left out of the query.
    if (weight !== undefined) vector.set(term, (1 + Math.log(count)) * weight);
  }
  return vector;
}

const norm = (vector: Vector) => Math.sqrt([...vector.values()].reduce((sum, w) => sum + w * w, 0));

/**
 * Steps ranked by relevance to `requirement`, best first, leaving out those whose score rounds to
 * 0. Ties keep the steps' order.
 */
export function rankSteps(steps: readonly SopStep[], requirement: string): StepMatch[] {
  const documents = steps.map((step) => termCounts(tokenize(stepText(step))));
  const documentFrequency = new Map<string, number>();
  for (const counts of documents) for (const term of counts.keys()) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
  // Smoothed so that a term every step shares still counts a little.
  const idf = new Map([...documentFrequency].map(([term, df]) => [term, Math.log(1 + steps.length / df)]));
  const query = weigh(termCounts(tokenize(requirement)), idf);
  const queryNorm = norm(query);
  if (queryNorm === 0) return [];

  const matches: StepMatch[] = [];
  documents.forEach((counts, index) => {
    const vector = weigh(counts, idf);
    const contributions: [string, number][] = [];
    for (const [term, weight] of query) {
      const other = vector.get(term);
      if (other !== undefined) contributions.push([term, weight * other]);
    }
    if (contributions.length === 0) return;
    const dot = contributions.reduce((sum, [, c]) => sum + c, 0);
    const score = Math.min(1, Math.round((dot / (queryNorm * norm(vector))) * 1000) / 1000);
    if (score === 0) return;
    contributions.sort((a, b) => b[1] - a[1]);
    matches.push({ step: steps[index] as SopStep, score, matchedTerms: contributions.map(([term]) => term) });
  });
  return matches.sort((a, b) => b.score - a.score);
}
