/**
 * generate_structured_outline, offline: a four-part outline whose title comes from the topic,
 * whose cast is invented by hash, and whose key points carry the research findings forward.
 */
import type { OutlineInput, OutlineOutput, ResearchItem } from '@switchyard/contracts';
import { inventCast, parseCharacter } from './cast.js';
import { createRng, type Rng } from './hash.js';
import { capitalize, clauseCase, fill, inlineCase } from './text.js';
import { analyzeTopic, titleCase, type TopicInfo } from './topic.js';

type Part = 'introduction' | 'development' | 'climax' | 'conclusion';
const PARTS: readonly Part[] = ['introduction', 'development', 'climax', 'conclusion'];

/** Story beats per part that need only the topic; `{finding}` beats carry a research result. */
const BEATS: Readonly<Record<Part, { topic: readonly string[]; finding: readonly string[]; titles: readonly string[] }>> = {
  introduction: {
    topic: [
      '{heroFull}, {heroRole}, keeps to a quiet routine at {place}',
      '{hero} first notices something out of place about {focus}',
      '{ally} arrives with a question about {anchor} that {hero} cannot answer',
    ],
    finding: ['{hero} comes across {finding}', 'an old account of {finding} catches {hero}\'s eye'],
    titles: ['Before {Focus}', 'A Quiet Routine', 'First Signs'],
  },
  development: {
    topic: [
      '{hero} and {ally} follow the trail of {focus} further than is safe',
      'a rival claim on {anchor} forces {hero} to choose a side',
      'what {hero} learns about {focus} overturns what {ally} believed',
    ],
    finding: ['{ally} links {finding} to {focus}', 'the clue in {finding} points somewhere no one expected'],
    titles: ['Following {Focus}', 'The Trail Narrows', 'Questions Without Answers'],
  },
  climax: {
    topic: [
      'everything about {focus} comes to a head on a single night',
      '{hero} risks the life built around {anchor} to act',
      'the truth {ally} kept hidden finally comes out',
    ],
    finding: ['the evidence of {finding} decides the outcome', '{hero} uses what {finding} revealed at the decisive moment'],
    titles: ['The Night Everything Turned', 'What {Focus} Revealed', 'Breaking Point'],
  },
  conclusion: {
    topic: [
      '{hero} returns to {place}, changed',
      'the meaning of {focus} is finally understood',
      '{ally} and {hero} part on new terms',
    ],
    finding: ['{finding} is remembered as the start of it all', '{hero} sets down the story of {finding} for others to find'],
    titles: ['After {Focus}', 'What Remains', 'Homecoming'],
  },
};

const THEMES: readonly string[] = [
  'how care for {focus} becomes care for people',
  'faithfulness to small things, seen through {focus}',
  'the cost of remembering, and the cost of letting go',
  'belonging found in the places no one else looks',
  'truth that arrives late but arrives all the same',
];

interface Finding {
  /** What the finding is called, ready to sit mid-sentence: "the lost mail". */
  name: string;
  /** Its first claim, shortened: "dead letter offices handled millions of undeliverable letters". */
  detail: string;
}

const DETERMINERS = new Set(['a', 'an', 'the', 'this', 'that', 'these', 'those', 'his', 'her', 'their', 'its', 'our', 'my', 'your', 'some', 'how', 'why', 'what', 'when', 'where', 'who']);

/** Share of the topic's key words found in a piece of text. */
function overlap(text: string, topic: TopicInfo): number {
  if (topic.keywords.length === 0) return 0;
  const words = new Set(text.toLowerCase().split(/[^\p{L}\p{N}]+/u));
  return topic.keywords.filter((k) => words.has(k)).length / topic.keywords.length;
}

/**
 * Titles often read "label: topic"; restating the topic inside a key point about that topic
 * says nothing, so the part that is mostly the topic is dropped when another part remains.
 */
function findingName(title: string, topic: TopicInfo): string {
  const parts = title.split(/:\s+|\s+[—–]\s+|\s+-\s+/u).map((p) => p.trim()).filter((p) => p.length > 0);
  const own = parts.filter((p) => overlap(p, topic) < 0.6);
  const name = inlineCase((own.length > 0 && own.length < parts.length ? own.join(': ') : title).trim().replace(/[.!?;:,]+$/u, ''));
  const first = name.split(/\s+/u)[0]?.toLowerCase() ?? '';
  return /^\p{Ll}/u.test(name) && !DETERMINERS.has(first) ? `the ${name}` : name;
}

/**
 * The first sentence of the content, cut to its leading clauses (at most sixteen words) or its
 * first clause of fair size, so a key point stays readable; failing both, twelve words and "…".
 */
function findingDetail(content: string): string {
  const sentence = bare(content.trim().split(/(?<=[.!?])\s/u)[0] ?? '');
  const count = (text: string) => text.split(/\s+/u).filter((w) => w.length > 0).length;
  if (count(sentence) <= 16) return inlineCase(sentence);
  const clauses = sentence.split(/(?<=[,;:—])\s*/u);
  const kept: string[] = [];
  for (const clause of clauses) {
    if (count([...kept, clause].join(' ')) > 16) break;
    kept.push(clause);
  }
  // A list cut short leaves a stub ("again and again: weather"); the claim ends before it.
  while (kept.length > 1 && count(kept.at(-1) ?? '') < 3) kept.pop();
  if (count(kept.join(' ')) >= 5) return inlineCase(bare(kept.join(' ')));
  // A short opener ("Long after the events,") is not a claim; a later clause of fair size is.
  const clause = clauses.find((c) => count(c) >= 5 && count(c) <= 18);
  if (clause) return inlineCase(bare(clause));
  return `${inlineCase(sentence.split(/\s+/u).slice(0, 12).join(' ').replace(/[,;:]+$/u, ''))}…`;
}

const bare = (text: string): string => text.replace(/\s+/gu, ' ').trim().replace(/[.!?;:,]+$/u, '');

export function findingOf(item: ResearchItem, topic: TopicInfo): Finding {
  // After the dash the detail continues the key point, so even a sentence with names in it loses a leading "The".
  return { name: findingName(item.title, topic), detail: item.content.trim() ? clauseCase(findingDetail(item.content)) : '' };
}

/** Research items go round the four parts in order, at most two per part, so each part gets its share. */
function assignFindings(research: readonly ResearchItem[], topic: TopicInfo): Record<Part, Finding[]> {
  const out: Record<Part, Finding[]> = { introduction: [], development: [], climax: [], conclusion: [] };
  research.slice(0, 8).forEach((item, i) => out[PARTS[i % PARTS.length] ?? 'introduction'].push(findingOf(item, topic)));
  return out;
}

function keyPoints(part: Part, findings: readonly Finding[], vars: Record<string, string>, rng: Rng): string[] {
  const beats = BEATS[part];
  // The beat names the finding; what the finding says follows a dash, so its words reach the writer.
  const fromResearch = findings.map((f) => fill(rng.pick(beats.finding), { ...vars, finding: f.name }) + (f.detail ? ` — ${f.detail}` : ''));
  // Two to four points: topic beats fill in around the research, at least one of them.
  const topicCount = Math.min(4 - fromResearch.length, Math.max(2 - fromResearch.length, rng.between(1, 2)));
  const fromTopic = beats.topic.slice(0, topicCount).map((beat) => fill(beat, vars));
  const [first, ...rest] = fromTopic;
  return [first, ...fromResearch, ...rest].filter((p): p is string => p !== undefined).map(capitalize);
}

export function outline(input: OutlineInput): OutlineOutput {
  const topic = analyzeTopic(input.topic);
  const seed = `${topic.phrase.toLowerCase()}|${input.structure}`;
  const rng = createRng('outline', seed, JSON.stringify(input.research));
  const characters = inventCast(topic.phrase.toLowerCase(), topic.personRole);
  const [hero, ally] = characters.map(parseCharacter);
  const vars: Record<string, string> = {
    hero: hero?.short ?? 'the keeper',
    heroFull: hero?.full ?? 'the keeper',
    heroRole: hero?.role ?? 'a newcomer',
    ally: ally?.short ?? 'a neighbour',
    place: topic.place,
    focus: topic.focus,
    anchor: topic.anchor,
    // "Before the Lost Letters": the article stays lower case inside a title.
    Focus: topic.focus.startsWith('the ') ? `the ${titleCase(topic.focus.slice(4))}` : titleCase(topic.focus),
  };
  const findings = assignFindings(input.research, topic);
  const section = (part: Part) => ({ title: fill(rng.pick(BEATS[part].titles), vars), key_points: keyPoints(part, findings[part], vars, rng) });
  const firstFinding = (findings.development[0] ?? findings.introduction[0])?.name;

  return {
    title: topic.hadArticle ? `The ${topic.titleWords}` : topic.titleWords,
    sections: {
      introduction: { ...section('introduction'), characters },
      development: {
        ...section('development'),
        conflict: fill(`{hero} must choose between {anchor} and the truth about {focus}, while {ally} pushes the other way`, vars) +
          (firstFinding ? `, and the matter of ${firstFinding} raises the stakes` : ''),
      },
      climax: { ...section('climax'), resolution_setup: fill('{hero} holds the one clue that can settle the question of {focus}', vars) },
      // The theme is a phrase, not a sentence, so it stays lower case to sit inside one.
      conclusion: { ...section('conclusion'), theme: fill(rng.pick(THEMES), vars) },
    },
  };
}
