/**
 * The story's people: invented deterministically when the outline has none, and parsed from
 * "Name, role" strings when it does, so every section can call them by name.
 */
import { createRng } from './hash.js';
import { FIRST_NAMES, LAST_NAMES, ROLES, STOPWORDS } from './lexicon.js';

export interface Character {
  /** "Mara Ellison" or "the harbour master". */
  full: string;
  /** What the prose calls them after the first mention: "Mara". */
  short: string;
  /** "a cartographer", when the outline gave one. */
  role?: string;
}

/** "Mara Ellison, a cartographer" → Mara Ellison / Mara / a cartographer. "the harbour master" stays whole. */
export function parseCharacter(text: string): Character {
  const [namePart = '', ...rest] = text.split(/[,(—–:]|\s-\s/u);
  const full = namePart.trim().replace(/\)$/u, '') || text.trim();
  const role = rest.join(',').replace(/\)$/u, '').trim();
  const first = full.split(/\s+/u)[0] ?? full;
  // A description rather than a name has no first name to shorten to.
  const short = /^\p{Lu}/u.test(first) && !/^(the|a|an)$/iu.test(first) ? first : full;
  return { full, short, ...(role ? { role } : {}) };
}

export function describe(character: Character): string {
  return character.role ? `${character.full}, ${character.role}` : character.full;
}

/**
 * Two or three people with distinct first and last names. The protagonist takes the topic's
 * own kind of person when it names one ("a lighthouse keeper"), so the cast fits the premise.
 */
export function inventCast(seed: string, protagonistRole?: string, avoid: readonly string[] = []): string[] {
  const rng = createRng('cast', seed);
  const size = rng.between(2, 3);
  const firsts = rng.shuffle(FIRST_NAMES).filter((name) => !avoid.includes(name));
  const lasts = rng.shuffle(LAST_NAMES);
  const roles = rng.shuffle(ROLES).filter((role) => role !== protagonistRole);
  const cast: string[] = [];
  for (let i = 0; i < size; i += 1) {
    const role = i === 0 && protagonistRole ? protagonistRole : roles[i];
    cast.push(`${firsts[i] ?? 'Alex'} ${lasts[i] ?? 'Morgan'}, ${role ?? 'a neighbour'}`);
  }
  return cast;
}

/**
 * People an outline section mentions without listing them, so a writer given no cast still
 * calls them by the outline's names. A capitalised word counts when it is one of the names this
 * author invents, or when it stands mid-sentence on its own; runs of capitals ("Royal Mail")
 * are more often places and institutions than people.
 */
export function namesMentioned(texts: readonly string[]): string[] {
  const found: string[] = [];
  for (const text of texts) {
    for (const match of text.matchAll(/(?<![\p{L}\p{N}'’-])\p{Lu}\p{Ll}+(?:\s+\p{Lu}\p{Ll}+)*/gu)) {
      const words = match[0].split(/\s+/u);
      const first = words[0] ?? '';
      const known = FIRST_NAMES.includes(first);
      const before = text.slice(0, match.index).trimEnd();
      const midSentence = before !== '' && !/[.!?:;—–-]$/u.test(before);
      if (!known && (words.length > 1 || !midSentence || STOPWORDS.has(first.toLowerCase()))) continue;
      if (!found.includes(first)) found.push(first);
    }
  }
  return found.slice(0, 3);
}
