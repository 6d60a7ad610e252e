/**
 * What a stage start answers (the `start` operation of stage-scripts.ts), decoded: the run's
 * state, and the outputs of the stages it asked for (a map step's as one list of its branches').
 */
import type { RunStatus } from '@switchyard/contracts';

/** What a stage finds when it starts. `inputs` are the outputs of the stages it asked for. */
export type StageStart =
  | { kind: 'missing' }
  | { kind: 'ended'; status: RunStatus }
  /** A wanted step is not done (asked with `needsDone`). */
  | { kind: 'unready'; need: string }
  | { kind: 'done'; output: unknown; inputs: Record<string, unknown>; request: unknown }
  /** A resumed stage's look: its item too when asked for, as a start's (a resumed map branch still reads its item). */
  | { kind: 'peek'; inputs: Record<string, unknown>; request: unknown; item?: { value: unknown } | 'missing' }
  /** `item`: the branch's item when asked for; `missing` when the run has no such item stored. */
  | { kind: 'started'; attempt: number; inputs: Record<string, unknown>; request: unknown; item?: { value: unknown } | 'missing' };

const parsed = (text: string | undefined): unknown => (text ? (JSON.parse(text) as unknown) : null);

/**
 * The start's reply as a StageStart; `moved` tells whether this start moved the run from queued
 * (its batch's counts then follow).
 */
export function decodeStageStart(reply: readonly string[], asked: { inputs: readonly string[]; withRequest: boolean; withItem?: boolean }): { start: StageStart; moved: boolean } {
  // An output never written (a skipped step) reads as null.
  const itemAt = asked.withRequest ? 3 : 2;
  const first = itemAt + (asked.withItem ? 1 : 0);
  const request = asked.withRequest ? parsed(reply[2]) : null;
  const itemText = asked.withItem ? reply[itemAt] : undefined;
  const item = itemText === undefined ? {} : { item: itemText === '' ? ('missing' as const) : { value: parsed(itemText) } };
  const inputs: Record<string, unknown> = {};
  asked.inputs.forEach((name, i) => {
    inputs[name] = parsed(reply[first + i]);
  });
  switch (reply[0]) {
    case 'missing':
      return { start: { kind: 'missing' }, moved: false };
    case 'ended':
      return { start: { kind: 'ended', status: reply[1] as RunStatus }, moved: false };
    case 'unready':
      return { start: { kind: 'unready', need: reply[1] as string }, moved: false };
    case 'done':
      return { start: { kind: 'done', output: parsed(reply[1]), inputs, request }, moved: false };
    case 'peek':
      return { start: { kind: 'peek', inputs, request, ...item }, moved: false };
    default:
      return { start: { kind: 'started', attempt: Number(reply[1]), inputs, request, ...item }, moved: reply[0] === 'running' };
  }
}
