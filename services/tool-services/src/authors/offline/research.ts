/**
 * search_relevant_information, offline: no index to search, so it writes the findings a good
 * search would surface — one per facet of the topic, ranked — from the topic's own words.
 */
import type { SearchInput, SearchOutput } from '@switchyard/contracts';
import { createRng } from './hash.js';
import { FACETS } from './lexicon.js';
import { capitalize, fill } from './text.js';
import { analyzeTopic, type TopicInfo } from './topic.js';

/** How each kind of material talks about itself; unknown kinds are named as given. */
const SOURCE_VOICES: Readonly<Record<string, readonly string[]>> = {
  reference: ['Reference notes single out {keywords} as the terms to know.', 'Standard reference material keeps returning to {keywords}.'],
  historical: ['Archival records mention {keywords} more often than anything else.', 'Historians of the period point to {keywords} as the thread to follow.'],
  scientific: ['Technical studies treat {keywords} as the variables that matter.', 'The research literature frames the question around {keywords}.'],
  cultural: ['Folklore and local memory keep {keywords} alive in their own way.', 'Cultural accounts colour {keywords} with feeling as much as fact.'],
  news: ['Recent reporting keeps {keywords} in the headlines.', 'Press coverage returns to {keywords} whenever the subject resurfaces.'],
  interview: ['First-hand interviews describe {keywords} in the words of people who lived it.', 'Those interviewed speak of {keywords} with surprising warmth.'],
};

function sourceVoice(type: string, rng: ReturnType<typeof createRng>): string {
  const key = type.trim().toLowerCase();
  const voices = SOURCE_VOICES[key];
  if (voices) return rng.pick(voices);
  // An unfamiliar type still flavours the wording, by name.
  const label = key.replace(/[_-]+/gu, ' ') || 'general';
  return `Sources of the ${label} kind single out {keywords} as the terms to know.`;
}

/** "lighthouse, keeper and letters": the topic's words, so a reader sees the topic in every snippet. */
function keywordList(topic: TopicInfo, rng: ReturnType<typeof createRng>): string {
  const words = topic.keywords.length > 0 ? topic.keywords : [topic.phrase];
  const chosen = words.length <= 3 ? words : rng.shuffle(words).slice(0, 3);
  const quoted = chosen.map((w) => `"${w}"`);
  return quoted.length > 1 ? `${quoted.slice(0, -1).join(', ')} and ${quoted.at(-1) ?? ''}` : (quoted[0] ?? '');
}

/**
 * Relevance in hundredths, strictly descending: a top score in the 90s, then steps of 3–7,
 * which stays above zero for the ten results the schema allows.
 */
function relevances(count: number, rng: ReturnType<typeof createRng>): number[] {
  const scores: number[] = [];
  let current = rng.between(90, 98);
  for (let i = 0; i < count; i += 1) {
    scores.push(current / 100);
    current -= rng.between(3, 7);
  }
  return scores;
}

export function research(input: SearchInput): SearchOutput {
  const topic = analyzeTopic(input.topic);
  const rng = createRng('research', topic.phrase.toLowerCase(), input.type);
  const count = Math.max(1, Math.min(FACETS.length, Math.floor(input.depth)));
  const facets = rng.shuffle(FACETS).slice(0, count);
  const scores = relevances(count, rng);
  const vars = { phrase: topic.phrase, subject: topic.subject, focus: topic.focus, anchor: topic.anchor };

  const results = facets.map((facet, i) => {
    const snippet = `${capitalize(fill(rng.pick(facet.snippets), vars))} ${fill(sourceVoice(input.type, rng), { keywords: keywordList(topic, rng) })}`;
    return { title: `${capitalize(rng.pick(facet.titles))}: ${topic.phrase}`, snippet, relevance: scores[i] ?? 0 };
  });
  // A plausible index size: bigger for deeper searches, never smaller than what is returned.
  const total = results.length * rng.between(40, 160) + rng.between(0, 999);
  return { results, metadata: { total_results: total, filtered_results: results.length } };
}
