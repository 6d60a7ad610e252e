/**
 * The completion time the configured concurrency allows a batch of stories, given each tool's
 * latency. Each stage class (a tool service's step queue) is a server with `workers × concurrency`
 * slots, and a story holds one slot per call for the call's time; the busiest class bounds the
 * batch, and the last story still needs the critical path of one story after it starts.
 */
import { DEFAULT_POLL, type PollOptions } from '@switchyard/tool-client';

export interface StageLoad {
  /** Calls of this stage per story (the story's writer is called once per section). */
  callsPerStory: number;
  /** How long one call holds its slot, ms. */
  callMs: number;
  /** Slots per worker process (the queue's concurrency). */
  concurrency: number;
}

export interface Bound {
  /** Seconds the busiest stage class needs for every story, plus one story's critical path. */
  seconds: number;
  limiting_stage: string;
  /** Seconds each stage class needs alone (stories × calls × time ÷ slots). */
  by_stage_s: Record<string, number>;
  critical_path_s: number;
}

const round = (n: number) => Math.round(n * 100) / 100;

/**
 * When the tool client sees an async task of `taskMs` finished: at its first poll at or after
 * that time (polls at 250 ms, then each wait 1.5× the last, up to 5 s, by default).
 */
export function asyncSeenAfterMs(taskMs: number, poll: Pick<PollOptions, 'initialDelayMs' | 'maxDelayMs' | 'factor'> = DEFAULT_POLL): number {
  let at = 0;
  let wait = poll.initialDelayMs;
  for (;;) {
    at += wait;
    if (at >= taskMs) return at;
    wait = Math.min(poll.maxDelayMs, wait * poll.factor);
  }
}

/**
 * @param options.stories stories in the batch
 * @param options.workers worker processes
 * @param options.stages by name, in the order a story passes them (the critical path is the sum of each stage's call time)
 */
export function completionBound(options: { stories: number; workers: number; stages: Record<string, StageLoad> }): Bound {
  const byStage = Object.fromEntries(
    Object.entries(options.stages).map(([name, stage]) => [name, (options.stories * stage.callsPerStory * stage.callMs) / (options.workers * stage.concurrency) / 1000]),
  );
  const [limiting, busiest] = Object.entries(byStage).reduce((a, b) => (b[1] > a[1] ? b : a), ['none', 0]);
  const critical = Object.values(options.stages).reduce((sum, stage) => sum + stage.callMs, 0) / 1000;
  return { seconds: round(busiest + critical), limiting_stage: limiting, by_stage_s: Object.fromEntries(Object.entries(byStage).map(([k, v]) => [k, round(v)])), critical_path_s: round(critical) };
}
