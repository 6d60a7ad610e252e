/**
 * polish_story, offline: runs the edits each requested focus area calls for and reports, per
 * focus area, how many places really changed. A focus area no edit serves reports zero rather
 * than a made-up number.
 */
import type { PolishInput, PolishOutput } from '@switchyard/contracts';
import {
  capitalizeSentences,
  collapseWhitespace,
  fixArticles,
  fixNameCase,
  fixPunctuationSpacing,
  removeRepeatedWords,
  splitLongSentences,
  varyOpeners,
  type Edit,
} from './polish-edits.js';
import { countWords } from './text.js';

type EditKind = 'whitespace' | 'punctuation' | 'repeats' | 'articles' | 'capitals' | 'names' | 'long_sentences' | 'openers';

/** What each focus area is reported as, and which kinds of edit it asks for. */
const FOCUS: Readonly<Record<string, { type: string; kinds: readonly EditKind[] }>> = {
  character_development: { type: 'character_depth', kinds: ['names'] },
  language: { type: 'language_enhancement', kinds: ['whitespace', 'punctuation', 'repeats', 'articles', 'capitals'] },
  pacing: { type: 'pacing_adjustment', kinds: ['long_sentences', 'openers'] },
  grammar: { type: 'grammar', kinds: ['articles', 'capitals'] },
  punctuation: { type: 'punctuation', kinds: ['punctuation'] },
  formatting: { type: 'formatting', kinds: ['whitespace'] },
  clarity: { type: 'clarity', kinds: ['long_sentences'] },
  readability: { type: 'readability', kinds: ['long_sentences'] },
  repetition: { type: 'repetition', kinds: ['repeats', 'openers'] },
  flow: { type: 'flow', kinds: ['openers'] },
  consistency: { type: 'consistency', kinds: ['names'] },
};

const ALIASES: Readonly<Record<string, string>> = {
  character: 'character_development', characters: 'character_development', character_depth: 'character_development',
  language_enhancement: 'language', prose: 'language', pacing_adjustment: 'pacing', pace: 'pacing',
};

const key = (area: string): string => area.trim().toLowerCase().replace(/[\s-]+/gu, '_');
const focusOf = (area: string) => FOCUS[ALIASES[key(area)] ?? key(area)];

/** Younger readers get shorter sentences; for everyone else only the truly sprawling ones are split. */
function longSentenceLimit(audience: string): number {
  const who = key(audience);
  if (/child|kid|middle_grade|early_reader/u.test(who)) return 18;
  if (/young_adult|^ya$|teen/u.test(who)) return 25;
  return 45;
}

/** Fixed order: spacing first so later patterns see clean text; sentence-level edits last. */
function pipeline(audience: string): readonly [EditKind, (text: string) => Edit][] {
  return [
    ['whitespace', collapseWhitespace],
    ['punctuation', fixPunctuationSpacing],
    ['repeats', removeRepeatedWords],
    ['articles', fixArticles],
    ['capitals', capitalizeSentences],
    ['names', fixNameCase],
    ['long_sentences', (text) => splitLongSentences(text, longSentenceLimit(audience))],
    ['openers', varyOpeners],
  ];
}

export function polish(input: PolishInput): PolishOutput {
  const areas = input.focus_areas.filter((area) => area.trim().length > 0);
  const wanted = new Set(areas.flatMap((area) => focusOf(area)?.kinds ?? []));
  const counts = new Map<EditKind, number>();
  let text = input.draft;
  for (const [kind, edit] of pipeline(input.target_audience)) {
    if (!wanted.has(kind)) continue;
    const result = edit(text);
    text = result.text;
    counts.set(kind, result.count);
  }
  // One entry per focus area; two names for the same area ("pacing", "pace") report once.
  const improvements = new Map<string, number>();
  for (const area of areas) {
    const focus = focusOf(area);
    const type = focus?.type ?? area.trim();
    const count = (focus?.kinds ?? []).reduce((sum, kind) => sum + (counts.get(kind) ?? 0), 0);
    improvements.set(type, count);
  }
  return {
    polished_content: text,
    improvements: [...improvements].map(([type, count]) => ({ type, count })),
    word_count: countWords(text),
  };
}
