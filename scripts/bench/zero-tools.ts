/**
 * Story tools that answer at once with small valid outputs, so a benchmark measures the
 * orchestration and nothing else. `onCall` sees each call's entry and exit time.
 */
import type { OutlineOutput } from '@switchyard/contracts';
import type { StoryTools } from '@switchyard/workers';

export type ToolPhase = 'search' | 'outline' | 'write' | 'polish';
export type CallObserver = (event: { phase: ToolPhase; edge: 'enter' | 'exit'; at: number; topic?: string }) => void;

const OUTLINE: OutlineOutput = {
  title: 'A Bench Story',
  sections: {
    introduction: { title: 'Introduction', key_points: ['a start'], characters: ['Ada'] },
    development: { title: 'Development', key_points: ['a turn'], conflict: 'a conflict' },
    climax: { title: 'Climax', key_points: ['a peak'], resolution_setup: 'a setup' },
    conclusion: { title: 'Conclusion', key_points: ['an end'], theme: 'a theme' },
  },
};

export function zeroLatencyTools(onCall: CallObserver = () => undefined): StoryTools {
  const timed = async <T>(phase: ToolPhase, make: () => T, topic?: string): Promise<T> => {
    onCall({ phase, edge: 'enter', at: performance.now(), topic });
    const value = make();
    onCall({ phase, edge: 'exit', at: performance.now(), topic });
    return value;
  };
  return {
    search: (args) => timed('search', () => ({ results: [{ title: args.topic, snippet: 'A fact.', relevance: 1 }], metadata: { total_results: 1, filtered_results: 1 } }), args.topic),
    outline: (args) => timed('outline', () => ({ ...OUTLINE, title: args.topic }), args.topic),
    writeSection: (args) => timed('write', () => ({ content: `The ${args.section_name} happens.`, word_count: 3, reading_time: '1 min' }), args.story_title),
    polish: (args) => timed('polish', () => ({ polished_content: args.draft, improvements: [], word_count: 12 })),
  };
}
