/**
 * Step kinds registered in code (`uses:` in a definition), for logic that is not one tool call.
 * A kind gets its step's evaluated arguments and returns the step's output; the engine around it
 * gives it what every step gets (start, retries, cancellation, events, the output kept).
 */
import type { RunStore, StepKindName } from '@switchyard/pipeline';

export interface StepKindContext {
  args: Record<string, unknown>;
  runId: string;
  /** The stage this step records, e.g. `s3_testcases`. */
  stage: string;
  signal: AbortSignal;
  /** 1 for the stage's first start, more after a retry or a crashed worker. */
  attempt: number;
  store: RunStore;
  /** Call before the stage's first event of its own (content): its `running` comes first. */
  announce(): void;
}

export interface StepKind {
  run(context: StepKindContext): Promise<unknown>;
}

export type StepKinds = Partial<Record<StepKindName, StepKind>>;
