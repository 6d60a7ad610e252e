/**
 * write_story_section, offline: builds paragraphs from the section's own sentence tables, sets
 * every key point into the prose, names the cast, and fills toward a word target the style sets.
 */
import { SECTION_ORDER, type SectionName, type WriteSectionInput, type WriteSectionOutput } from '@switchyard/contracts';
import { describe, inventCast, namesMentioned, parseCharacter, type Character } from './cast.js';
import { createRng, type Rng } from './hash.js';
import { INTRO_CAST, SECTION_PHRASES } from './section-phrases.js';
import { STYLE_PHRASES, styleOf, type StyleName } from './style-phrases.js';
import { capitalize, clauseCase, countWords, fill, listOf, readingTime } from './text.js';
import { analyzeTopic } from './topic.js';

/** A sentence the section must say (a key point, the cast) or may say if there is room. */
interface Unit {
  text: string;
  optional: boolean;
}
type Paragraph = Unit[];

// A key point cut short with "…" already ends; the frame's full stop would be one mark too many.
const tidy = (text: string): string => capitalize(text).replace(/…\.$/u, '…');
const required = (text: string): Unit => ({ text: tidy(text), optional: false });
const optional = (text: string): Unit => ({ text: capitalize(text), optional: true });

/** Draws without replacement, so no sentence repeats within a section; an empty deck draws nothing. */
function deck(rng: Rng, items: readonly string[]): () => string | undefined {
  const cards = rng.shuffle(items);
  return () => cards.shift();
}

/** Strips closing punctuation so a phrase can be set inside a sentence that supplies its own. */
const bare = (text: string): string => text.replace(/\s+/gu, ' ').trim().replace(/[.!?;:,]+$/u, '');

/**
 * The outline's people, else the caller's, else those the outline's own sentences name; topped
 * up with invented ones so there is always a pair.
 */
function castFor(input: WriteSectionInput, storyKey: string, personRole: string | undefined): Character[] {
  const o = input.outline;
  const mentioned = () => namesMentioned([...o.key_points, o.conflict ?? '', o.resolution_setup ?? '', o.theme ?? '']);
  const given = o.characters?.length ? o.characters : input.characters?.length ? input.characters : mentioned();
  const cast = given.map(parseCharacter).filter((c) => c.full.length > 0);
  if (cast.length < 2) {
    const extra = inventCast(storyKey, personRole, cast.map((c) => c.short)).map(parseCharacter);
    cast.push(...extra.slice(0, 2 - cast.length));
  }
  return cast;
}

function castUnits(section: SectionName, cast: readonly Character[], vars: Record<string, string>, rng: Rng): Unit[] {
  if (section !== 'introduction') return [required(fill(rng.pick(SECTION_PHRASES[section].cast), vars))];
  const [hero, ally, ...others] = cast;
  const units: Unit[] = [];
  // "Mara Ellison, a cartographer, has…": the role is an aside, so it is closed with a comma too.
  const intro = (c: Character, templates: readonly string[]) =>
    required(fill(rng.pick(templates), { ...vars, intro: c.role ? `${describe(c)},` : c.full }));
  if (hero) units.push(intro(hero, INTRO_CAST.hero));
  if (ally) units.push(intro(ally, INTRO_CAST.ally));
  const [third, ...crowd] = others;
  if (third) units.push(intro(third, INTRO_CAST.others));
  if (crowd.length > 0) units.push(required(`Around them, ${listOf(crowd.map(describe))} complete the small world of ${vars.place ?? 'the place'}.`));
  return units;
}

const outlineTexts = (input: WriteSectionInput): string => {
  const o = input.outline;
  return [...o.key_points, o.conflict ?? '', o.resolution_setup ?? '', o.theme ?? ''].join('\n');
};

/**
 * A Title Case story title hides which words are names, so "New Orleans" comes out of it as
 * "the new orleans". The outline's own sentences show the real casing: a mid-sentence capital
 * there marks a proper noun, which takes no article.
 */
function casedAsOutline(phrase: string, texts: string): string {
  const noun = phrase.replace(/^the /u, '');
  const found = plainOccurrences(noun, texts) ?? regexOccurrences(noun, texts);
  for (const { at, match } of found) {
    const before = texts.slice(0, at).trimEnd();
    const midSentence = before !== '' && !/[.!?:\n]$/u.test(before);
    if (midSentence && /^\p{Lu}/u.test(match)) return match;
  }
  return phrase;
}

const LETTER = /\p{L}/u;
/** Characters whose lower case is longer, or surrogate halves (no u flag: code units): offsets found in lower case would not hold. */
const UNEVEN_CASE = /[\u0130\uD800-\uDFFF]/;

interface Occurrence {
  at: number;
  match: string;
}

/**
 * Where `noun` stands as a whole word in `texts`, case ignored, found with indexOf on lower-cased
 * copies: compiling a Unicode regex for every section cost the reference services more CPU than
 * serving its stream. Null when lower-casing could shift offsets (the regex then).
 */
function plainOccurrences(noun: string, texts: string): Occurrence[] | null {
  const lower = texts.toLowerCase();
  const needle = noun.toLowerCase();
  if (needle === '' || lower.length !== texts.length || needle.length !== noun.length || UNEVEN_CASE.test(texts) || UNEVEN_CASE.test(noun)) return null;
  const found: Occurrence[] = [];
  for (let at = lower.indexOf(needle); at !== -1; at = lower.indexOf(needle, at + 1)) {
    const end = at + needle.length;
    if ((at > 0 && LETTER.test(texts.charAt(at - 1))) || LETTER.test(texts.charAt(end))) continue;
    found.push({ at, match: texts.slice(at, end) });
  }
  return found;
}

function regexOccurrences(noun: string, texts: string): Occurrence[] {
  const escaped = noun.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&');
  return [...texts.matchAll(new RegExp(`(?<![\\p{L}])${escaped}(?![\\p{L}])`, 'giu'))].map((match) => ({ at: match.index, match: match[0] }));
}

/** Key points split into one to three runs, one paragraph each, keeping their order. */
function groupKeyPoints(points: readonly string[]): string[][] {
  const groups = points.length <= 2 ? 1 : points.length <= 4 ? 2 : 3;
  const size = Math.ceil(points.length / groups);
  return Array.from({ length: groups }, (_, i) => points.slice(i * size, (i + 1) * size)).filter((g) => g.length > 0);
}

function keyPointParagraphs(points: readonly string[], section: SectionName, frames: readonly string[], vars: Record<string, string>, rng: Rng): Paragraph[] {
  const leads = rng.shuffle(SECTION_PHRASES[section].leads);
  const reaction = deck(rng, SECTION_PHRASES[section].reactions);
  // Few key points leave more room around each, so each gets a longer reaction.
  const perPoint = points.length <= 2 ? 3 : 2;
  let index = 0;
  return groupKeyPoints(points).map((group) =>
    group.flatMap((kp) => {
      const lead = leads[index % leads.length] ?? 'Then';
      const frame = frames[index % frames.length] ?? '{lead}: {kp}.';
      index += 1;
      // fill() does not rescan what it inserts, so braces inside a key point stay literal.
      const units = [required(fill(frame, { ...vars, lead, kp }))];
      for (let i = 0; i < perPoint; i += 1) {
        const text = reaction();
        if (text) units.push(optional(fill(text, vars)));
      }
      return units;
    }),
  );
}

/** Conflict, resolution set-up and theme, each in the register of this section. */
function weaveUnits(input: WriteSectionInput, vars: Record<string, string>): Unit[] {
  const phrases = SECTION_PHRASES[input.section_name];
  const fields = [
    [phrases.conflict, 'conflict', input.outline.conflict],
    [phrases.resolution, 'resolution', input.outline.resolution_setup],
    [phrases.theme, 'theme', input.outline.theme],
  ] as const;
  return fields
    .filter(([, , value]) => value !== undefined && bare(value).length > 0)
    .map(([template, key, value]) => required(fill(template, { ...vars, [key]: clauseCase(bare(value ?? '')) })));
}

/** The style's frames from this section's starting point in a per-story order (see style-phrases). */
function framesFor(input: WriteSectionInput, styleName: StyleName, storyKey: string): string[] {
  const frames = createRng('frames', storyKey, styleName).shuffle(STYLE_PHRASES[styleName].frames);
  const start = SECTION_ORDER.indexOf(input.section_name) * 2;
  return [...frames.slice(start), ...frames.slice(0, start)];
}

/**
 * Optional texture, drawn in rotation from the style's voice, the section's atmosphere, the
 * cast and the topic. The style's sentences are shuffled once per story and split four ways,
 * so the sections of one story never share one.
 */
function textureDealer(input: WriteSectionInput, styleName: StyleName, storyKey: string, rng: Rng, vars: Record<string, string>): (count: number) => Unit[] {
  const phrases = SECTION_PHRASES[input.section_name];
  const share = Math.floor(STYLE_PHRASES[styleName].ambient.length / SECTION_ORDER.length);
  const part = SECTION_ORDER.indexOf(input.section_name);
  const styleCards = createRng('style', storyKey, styleName).shuffle(STYLE_PHRASES[styleName].ambient).slice(part * share, (part + 1) * share);
  const decks = [deck(rng, styleCards), deck(rng, phrases.ambient), deck(rng, phrases.people), deck(rng, phrases.topical)];
  let turn = 0;
  const draw = (): string | undefined => {
    for (let tries = 0; tries < decks.length; tries += 1) {
      const card = decks[turn++ % decks.length]?.();
      if (card !== undefined) return card;
    }
    return undefined;
  };
  return (count) =>
    Array.from({ length: count }, draw)
      .filter((t): t is string => t !== undefined)
      .map((t) => optional(fill(t, vars)));
}

/** Adds optional sentences a paragraph at a time, round-robin, until the word target is met. */
function fillToTarget(paragraphs: Paragraph[], target: number): string[] {
  const chosen = paragraphs.map((p) => p.map((u) => !u.optional));
  const words = () => paragraphs.reduce((sum, p, i) => sum + p.reduce((s, u, j) => s + (chosen[i]?.[j] ? countWords(u.text) : 0), 0), 0);
  let total = words();
  let added = true;
  while (total < target && added) {
    added = false;
    for (let i = 0; i < paragraphs.length && total < target; i += 1) {
      const j = chosen[i]?.indexOf(false) ?? -1;
      if (j < 0) continue;
      (chosen[i] as boolean[])[j] = true;
      total += countWords(paragraphs[i]?.[j]?.text ?? '');
      added = true;
    }
  }
  return paragraphs.map((p, i) => p.filter((_, j) => chosen[i]?.[j]).map((u) => u.text).join(' '));
}

export function composeSection(input: WriteSectionInput): string {
  const section = input.section_name;
  const phrases = SECTION_PHRASES[section];
  const styleName = styleOf(input.style);
  const style = STYLE_PHRASES[styleName];
  const storyKey = input.story_title?.trim() || input.outline.title;
  const topic = analyzeTopic(storyKey);
  const rng = createRng('section', section, styleName, storyKey, JSON.stringify(input.outline), JSON.stringify(input.characters ?? []));
  const cast = castFor(input, storyKey, topic.personRole);
  const [hero, ally, third] = cast;
  const vars: Record<string, string> = {
    place: topic.place,
    time: topic.time,
    hero: hero?.short ?? 'the stranger',
    ally: ally?.short ?? 'a neighbour',
    third: third?.short ?? ally?.short ?? 'a neighbour',
    cast: listOf(cast.map((c) => c.short)),
    focus: casedAsOutline(topic.focus, outlineTexts(input)),
    anchor: casedAsOutline(topic.anchor, outlineTexts(input)),
  };
  const points = input.outline.key_points.map(bare).filter((p) => p.length > 0).map(clauseCase);
  const keyPoints = points.length > 0 ? points : [clauseCase(bare(input.outline.title))];

  const ambient = textureDealer(input, styleName, storyKey, rng, vars);

  const opening: Paragraph = [required(fill(rng.pick(phrases.open), vars)), ...castUnits(section, cast, vars, rng), ...ambient(5)];
  const middle = keyPointParagraphs(keyPoints, section, framesFor(input, styleName, storyKey), vars, rng).map((p) => [...p, ...ambient(4)]);
  const weave = weaveUnits(input, vars);
  const closing: Paragraph = [...ambient(5), required(fill(rng.pick(phrases.close), vars))];
  const paragraphs = [opening, ...middle, ...(weave.length > 0 ? [[...weave, ...ambient(3)]] : []), closing];

  const [low, high] = style.target;
  return fillToTarget(paragraphs, rng.between(low, high)).join('\n\n');
}

export function writeSection(input: WriteSectionInput): WriteSectionOutput {
  const content = composeSection(input);
  const wordCount = countWords(content);
  return { content, word_count: wordCount, reading_time: readingTime(wordCount) };
}
