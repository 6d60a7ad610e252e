/**
 * What the progress bar shows of a run, folded from its events (stage — with the run's progress
 * when one completes —, content, reset, error, done) or taken from a polled run view. Pure.
 */
import { countWords } from '@switchyard/contracts';

export interface RunState {
  status: string;
  progress: number;
  /** Stages running now, in the order they started. */
  running: string[];
  /** Text streamed so far per section; a `reset` empties its section. */
  sections: Record<string, string>;
  /** The section text arrived for last. */
  latest?: string | undefined;
  /** The last error, retried or not. */
  error?: string | undefined;
}

export const initialRunState = (): RunState => ({ status: 'queued', progress: 0, running: [], sections: {} });

const ENDED = new Set(['completed', 'failed', 'cancelled']);
export const hasEnded = (state: RunState) => ENDED.has(state.status);

function record(data: unknown): Record<string, unknown> {
  return data && typeof data === 'object' ? (data as Record<string, unknown>) : {};
}

export function applyRunEvent(state: RunState, type: string, data: unknown): RunState {
  const d = record(data);
  const str = (key: string) => (typeof d[key] === 'string' ? (d[key] as string) : undefined);
  switch (type) {
    case 'stage': {
      const stage = str('stage');
      if (!stage) return state;
      const others = state.running.filter((s) => s !== stage);
      const active = str('status') === 'running' || str('status') === 'retrying';
      const percent = record(d.progress).percent;
      return { ...state, status: hasEnded(state) ? state.status : 'running', running: active ? [...others, stage] : others, progress: typeof percent === 'number' ? percent : state.progress };
    }
    case 'content': {
      const section = str('section') ?? str('stage') ?? '';
      return { ...state, latest: section, sections: { ...state.sections, [section]: `${state.sections[section] ?? ''}${str('chunk') ?? ''}` } };
    }
    case 'reset': {
      const section = str('section') ?? str('stage') ?? '';
      return { ...state, sections: { ...state.sections, [section]: '' } };
    }
    case 'error':
      return { ...state, error: `${str('stage') ? `${str('stage')}: ` : ''}${str('message') ?? 'error'}${d.will_retry === true ? ' (retrying)' : ''}` };
    case 'done': {
      const status = str('status') ?? 'failed';
      const error = record(d.error);
      return { ...state, status, running: [], progress: status === 'completed' ? 100 : state.progress, error: typeof error.message === 'string' ? error.message : state.error };
    }
    default:
      return state;
  }
}

/** A polled `GET /v1/runs/:id`, folded the same way (no streamed text: the word count stays). */
export function applyRunView(state: RunState, view: { status: string; progress: number; stages: { name: string; status: string }[]; error: { message: string } | null }): RunState {
  return {
    ...state,
    status: view.status,
    progress: view.progress,
    running: view.stages.filter((s) => s.status === 'running' || s.status === 'retrying').map((s) => s.name),
    error: view.error?.message ?? state.error,
  };
}

/** The end of the text arriving now (at most `chars` characters, on one line), or undefined. */
export function liveText(state: RunState, chars = 200): string | undefined {
  if (hasEnded(state) || state.latest === undefined) return undefined;
  const text = (state.sections[state.latest] ?? '').slice(-chars * 2).replace(/\s+/g, ' ').trim();
  if (!text) return undefined;
  return text.length > chars ? `…${text.slice(-(chars - 1))}` : text;
}

export const wordsSoFar = (state: RunState) => Object.values(state.sections).reduce((sum, text) => sum + countWords(text), 0);

/** The stage column: the one running stage, or how many run at once. */
export const stageLabel = (state: RunState) => (state.running.length > 1 ? `${state.running.length} stages` : state.running[0]);
