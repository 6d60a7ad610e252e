/**
 * The four story tools of seed 004 §3: their inputs (checked by the services) and outputs
 * (checked by the client). Outputs keep unknown fields; inputs drop them.
 */
import { z } from 'zod';

export const StoryToolName = z.enum([
  'search_relevant_information',
  'generate_structured_outline',
  'write_story_section',
  'polish_story',
]);
export type StoryToolName = z.infer<typeof StoryToolName>;

export const SectionName = z.enum(['introduction', 'development', 'climax', 'conclusion']);
export type SectionName = z.infer<typeof SectionName>;
/** The order in which sections form the draft. */
export const SECTION_ORDER: readonly SectionName[] = SectionName.options;

const Text = (max: number) => z.string().trim().min(1).max(max);

// --- search_relevant_information -----------------------------------------------------------
export const SearchInput = z.object({
  topic: Text(500).describe('Story topic to research'),
  depth: z.number().int().min(1).max(10).default(3).describe('How many facets to research (1-10)'),
  type: z.string().max(50).default('reference').describe('Kind of material wanted'),
});
export type SearchInput = z.infer<typeof SearchInput>;

export const SearchResult = z.looseObject({
  title: z.string(),
  snippet: z.string(),
  relevance: z.number().min(0).max(1),
});
export type SearchResult = z.infer<typeof SearchResult>;

export const SearchOutput = z.looseObject({
  results: z.array(SearchResult),
  metadata: z.looseObject({
    total_results: z.number().int().nonnegative(),
    filtered_results: z.number().int().nonnegative(),
  }),
});
export type SearchOutput = z.infer<typeof SearchOutput>;

// --- generate_structured_outline -----------------------------------------------------------
export const ResearchItem = z.object({
  title: Text(300),
  content: z.string().max(5000),
});
export type ResearchItem = z.infer<typeof ResearchItem>;

export const OutlineInput = z.object({
  topic: Text(500),
  research: z.array(ResearchItem).max(50).default([]),
  structure: z.string().max(100).default('four_part'),
});
export type OutlineInput = z.infer<typeof OutlineInput>;

const KeyPoints = z.array(z.string()).min(1);
export const IntroductionOutline = z.looseObject({ title: z.string(), key_points: KeyPoints, characters: z.array(z.string()) });
export const DevelopmentOutline = z.looseObject({ title: z.string(), key_points: KeyPoints, conflict: z.string() });
export const ClimaxOutline = z.looseObject({ title: z.string(), key_points: KeyPoints, resolution_setup: z.string() });
export const ConclusionOutline = z.looseObject({ title: z.string(), key_points: KeyPoints, theme: z.string() });

export const OutlineOutput = z.looseObject({
  title: z.string(),
  sections: z.looseObject({
    introduction: IntroductionOutline,
    development: DevelopmentOutline,
    climax: ClimaxOutline,
    conclusion: ConclusionOutline,
  }),
});
export type OutlineOutput = z.infer<typeof OutlineOutput>;

/** One section of an outline as a writer receives it: the common fields plus the section's own. */
export const SectionOutline = z.object({
  title: Text(300),
  key_points: z.array(z.string().max(1000)).min(1).max(20),
  characters: z.array(z.string().max(100)).max(20).optional(),
  conflict: z.string().max(1000).optional(),
  resolution_setup: z.string().max(1000).optional(),
  theme: z.string().max(1000).optional(),
});
export type SectionOutline = z.infer<typeof SectionOutline>;

// --- write_story_section -------------------------------------------------------------------
export const WriteSectionInput = z.object({
  section_name: SectionName,
  outline: SectionOutline,
  style: z.string().max(50).default('descriptive'),
  // Optional context beyond the seed, so every section can name the same cast and title.
  story_title: z.string().max(300).optional(),
  characters: z.array(z.string().max(100)).max(20).optional(),
});
export type WriteSectionInput = z.infer<typeof WriteSectionInput>;

export const WriteSectionOutput = z.looseObject({
  content: z.string(),
  word_count: z.number().int().nonnegative(),
  reading_time: z.string(),
});
export type WriteSectionOutput = z.infer<typeof WriteSectionOutput>;

// --- polish_story --------------------------------------------------------------------------
export const PolishInput = z.object({
  draft: Text(200_000),
  focus_areas: z.array(z.string().max(50)).max(10).default(['character_development', 'pacing', 'language']),
  target_audience: z.string().max(50).default('general'),
});
export type PolishInput = z.infer<typeof PolishInput>;

export const Improvement = z.looseObject({ type: z.string(), count: z.number().int().nonnegative() });
export const PolishOutput = z.looseObject({
  polished_content: z.string(),
  improvements: z.array(Improvement),
  word_count: z.number().int().nonnegative(),
});
export type PolishOutput = z.infer<typeof PolishOutput>;

/** Input and output schema of each story tool, by name. */
export const STORY_TOOL_SCHEMAS = {
  search_relevant_information: { input: SearchInput, output: SearchOutput },
  generate_structured_outline: { input: OutlineInput, output: OutlineOutput },
  write_story_section: { input: WriteSectionInput, output: WriteSectionOutput },
  polish_story: { input: PolishInput, output: PolishOutput },
} as const satisfies Record<StoryToolName, { input: z.ZodType; output: z.ZodType }>;

export interface StoryToolIo {
  search_relevant_information: { input: z.input<typeof SearchInput>; output: SearchOutput };
  generate_structured_outline: { input: z.input<typeof OutlineInput>; output: OutlineOutput };
  write_story_section: { input: z.input<typeof WriteSectionInput>; output: WriteSectionOutput };
  polish_story: { input: z.input<typeof PolishInput>; output: PolishOutput };
}
