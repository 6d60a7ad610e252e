/**
 * Zero-latency story tools for the benchmark: each returns a small fixed output at once, valid
 * against the seed's output schemas (checked once at load). An optional probe sees every call's
 * entry and exit with performance.now(), so stage hops can be measured at the tool boundary.
 */
import { OutlineOutput, PolishOutput, SearchOutput, WriteSectionOutput, type SectionName } from '@switchyard/contracts';
import type { StepTools } from '@switchyard/workers';

export type ToolStage = 'search' | 'outline' | `write.${SectionName}` | 'polish';

export interface ToolProbe {
  enter(stage: ToolStage): void;
  exit(stage: ToolStage): void;
}

export const SEARCH_OUTPUT: SearchOutput = SearchOutput.parse({
  results: [{ title: 'A lighthouse', snippet: 'Lighthouses guide ships past rocks at night.', relevance: 0.9 }],
  metadata: { total_results: 1, filtered_results: 1 },
});

export const OUTLINE_OUTPUT: OutlineOutput = OutlineOutput.parse({
  title: 'The Keeper',
  sections: {
    introduction: { title: 'Arrival', key_points: ['a storm'], characters: ['Ada'] },
    development: { title: 'Letters', key_points: ['a lost letter'], conflict: 'the sea keeps secrets' },
    climax: { title: 'The Wreck', key_points: ['a ship in trouble'], resolution_setup: 'the lamp fails' },
    conclusion: { title: 'Dawn', key_points: ['the letter delivered'], theme: 'care' },
  },
});

export const SECTION_OUTPUT: WriteSectionOutput = WriteSectionOutput.parse({ content: 'Ada climbed the stairs as the storm rose.', word_count: 8, reading_time: '1 min' });

export const POLISH_OUTPUT: PolishOutput = PolishOutput.parse({
  polished_content: 'Ada climbed the stairs as the storm rose, and kept the lamp lit.',
  improvements: [{ type: 'pacing', count: 1 }],
  word_count: 13,
});

/** The story services' tools, answering at once; with `probe`, every call's entry and exit is reported. */
export function createInstantTools(probe?: ToolProbe): StepTools {
  const timed = async <T>(stage: ToolStage, output: T): Promise<T> => {
    probe?.enter(stage);
    probe?.exit(stage);
    return output;
  };
  const answers: Record<string, (args: Record<string, unknown>) => Promise<unknown>> = {
    search_relevant_information: () => timed('search', SEARCH_OUTPUT),
    generate_structured_outline: () => timed('outline', OUTLINE_OUTPUT),
    write_story_section: (args) => timed(`write.${String(args.section_name) as SectionName}`, SECTION_OUTPUT),
    polish_story: () => timed('polish', POLISH_OUTPUT),
  };
  return {
    services: () => ['search', 'outline', 'writing', 'editing'],
    modeOf: () => 'sync',
    call: ({ tool, args }) => answers[tool]?.(args) ?? Promise.reject(new Error(`no instant tool ${tool}`)),
  };
}
