/**
 * What a finished call reports to `onCallEnd`: who was called, how, how it ended and how long it
 * took. The outcome is one of a fixed set of words, never a message or a service's own error
 * code, so that it can label a metric; a tool the service does not publish is named `unknown`.
 */
import type { ToolCallMode } from '@switchyard/contracts';
import {
  CircuitOpenError,
  ToolAbortedError,
  ToolDeadlineError,
  ToolInputError,
  ToolNetworkError,
  ToolProtocolError,
  ToolRejectedError,
  ToolStreamError,
  ToolTaskFailedError,
  ToolTaskLostError,
  ToolTimeoutError,
  ToolUnavailableError,
} from './errors.js';

export const CALL_OUTCOMES = ['ok', 'rejected', 'unavailable', 'network', 'timeout', 'stream_cut', 'aborted', 'circuit_open', 'invalid_input', 'protocol', 'task_failed', 'task_lost', 'deadline', 'error'] as const;
export type CallOutcome = (typeof CALL_OUTCOMES)[number];

export interface ToolCallRecord {
  service: string;
  /** The tool called, or `unknown` when the service does not publish it. */
  tool: string;
  mode: ToolCallMode;
  outcome: CallOutcome;
  /** From the call to its result or last error, retries and polling included. */
  seconds: number;
}

const OUTCOMES: readonly [abstract new (...args: never[]) => Error, CallOutcome][] = [
  [CircuitOpenError, 'circuit_open'],
  [ToolRejectedError, 'rejected'],
  [ToolUnavailableError, 'unavailable'],
  [ToolNetworkError, 'network'],
  [ToolTimeoutError, 'timeout'],
  [ToolStreamError, 'stream_cut'],
  [ToolAbortedError, 'aborted'],
  [ToolInputError, 'invalid_input'],
  [ToolProtocolError, 'protocol'],
  [ToolTaskFailedError, 'task_failed'],
  [ToolTaskLostError, 'task_lost'],
  [ToolDeadlineError, 'deadline'],
];

/** The outcome word of a call that ended with `error` (undefined: it succeeded). */
export function callOutcome(error?: unknown): CallOutcome {
  if (error === undefined) return 'ok';
  return OUTCOMES.find(([type]) => error instanceof type)?.[1] ?? 'error';
}

/** The tool as a label: the name asked for, unless the service said it has no such tool. */
export function recordedTool(tool: string, error?: unknown): string {
  return error instanceof ToolInputError && error.code === 'tool_not_found' ? 'unknown' : tool;
}
