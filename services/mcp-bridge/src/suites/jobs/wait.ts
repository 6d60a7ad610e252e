/**
 * Following a run until it ends: the run's event stream is read from the event that was last
 * before the run was looked at, on a Redis connection of its own (a blocked connection serves
 * nobody else), and every stage change or new percentage is reported as progress, as is each
 * agent step's turn, tool call and tool result (so that a run of one long agent stage still moves).
 * When the run waits (for an approval or a signal), `onWaiting` is told, e.g. to ask the person
 * behind the client (elicit.ts); the events are read on once it returns.
 */
import type { Redis } from 'ioredis';
import { TERMINAL_STATUSES } from '@switchyard/contracts';
import { findRun, readEvents, type RunRecord, type RunStore } from '@switchyard/pipeline';
import { followRedis } from '@switchyard/redis';
import { agentLine } from '../../logging/run-messages.js';

export interface RunProgress {
  /** 0–100, strictly growing from one report to the next. */
  progress: number;
  message: string;
}

export interface WaitOptions {
  runId: string;
  timeoutMs: number;
  signal: AbortSignal;
  onProgress(progress: RunProgress): Promise<void>;
  /** Longest single blocking read, so that an abort is noticed (default 5000 ms). */
  pollMs?: number;
  /** Told when the run waits, at the start or on a pending `waiting` event; `report` adds a progress line (default: nothing). */
  onWaiting?(report: (line: string) => Promise<void>): Promise<void>;
}

/** The run once it has ended or the time is up; null when there is no such run. */
export async function waitForRun(deps: { store: RunStore; redis: Redis }, options: WaitOptions): Promise<{ run: RunRecord; timedOut: boolean } | null> {
  const key = deps.store.keys.events(options.runId);
  const [last] = await deps.redis.xrevrange(key, '+', '-', 'COUNT', 1);
  let after = last?.[0] ?? '0';
  const run = await findRun(deps, options.runId);
  if (!run) return null;
  if (TERMINAL_STATUSES.includes(run.status)) return { run, timedOut: false };

  const reporter = progressReporter(options.onProgress);
  await reporter.report(run.progress, `${run.status}: ${describeStages(run)}`);
  const deadline = Date.now() + options.timeoutMs;
  const line = (text: string) => reporter.report(undefined, text);
  if (run.status === 'waiting') await options.onWaiting?.(line);
  const reader = followRedis(deps.redis.duplicate());
  // A failure shows in the pending read; the connection's own error events would only be noise.
  reader.on('error', () => undefined);
  const stop = () => reader.disconnect();
  options.signal.addEventListener('abort', stop, { once: true });
  try {
    let ended = false;
    while (!ended && !options.signal.aborted) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) break;
      const events = await readEvents({ redis: reader, key, after, blockMs: Math.max(1, Math.min(remaining, options.pollMs ?? 5000)) });
      for (const event of events) {
        after = event.id;
        const data = parseData(event.data);
        if (event.type === 'stage') await reporter.report(progressOf(data)?.percent, stageMessage(data));
        else if (event.type === 'turn' || event.type === 'tool_call' || event.type === 'tool_result') await reporter.report(undefined, agentLine(event.type, data));
        else if (event.type === 'waiting' && data.state === 'pending') {
          await line(`${String(data.stage)} waits for ${data.kind === 'approval' ? `approval of ${String(data.tool)}` : `signal ${String(data.key)}`}`);
          await options.onWaiting?.(line);
        }
        else if (event.type === 'done') {
          await reporter.report(undefined, `run ${String(data.status)}`, String(data.status) === 'completed');
          ended = true;
        }
      }
    }
  } catch (error) {
    // Disconnecting the reader on abort fails its pending read; anything else is a real failure.
    if (!options.signal.aborted) throw error;
  } finally {
    options.signal.removeEventListener('abort', stop);
    reader.disconnect();
  }
  const current = (await deps.store.getRun(options.runId)) ?? run;
  return { run: current, timedOut: !TERMINAL_STATUSES.includes(current.status) };
}

/** A completed or skipped stage's event carries the run's progress. */
function progressOf(data: Record<string, unknown>): { percent: number } | undefined {
  const progress = data.progress;
  if (!progress || typeof progress !== 'object') return undefined;
  const percent = Number((progress as Record<string, unknown>).percent);
  return Number.isFinite(percent) ? { percent } : undefined;
}

function stageMessage(data: Record<string, unknown>): string {
  const attempt = Number(data.attempt) > 1 ? ` (attempt ${String(data.attempt)})` : '';
  return `${String(data.stage)} ${String(data.status)}${attempt}`;
}

function parseData(raw: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(raw);
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function describeStages(run: RunRecord): string {
  const active = run.stages.filter((s) => s.status === 'running' || s.status === 'retrying').map((s) => s.name);
  const done = run.stages.filter((s) => s.status === 'completed').length;
  return `${done} of ${run.stages.length} stages done${active.length > 0 ? `, ${active.join(', ')} running` : ''}`;
}

/**
 * MCP requires each progress value to be greater than the last. A stage change with no new
 * percentage still moves the value on by a hundredth, and only the end of a completed run
 * reaches 100 (a run that failed or was cancelled stops short of it).
 */
function progressReporter(send: (progress: RunProgress) => Promise<void>) {
  let last = -1;
  return {
    async report(percent: number | undefined, message: string, final = false) {
      const ceiling = final ? 100 : 99.99;
      const target = final ? 100 : percent === undefined ? last : Math.min(percent, 99);
      const next = Math.round(Math.min(ceiling, Math.max(target, last + 0.01)) * 100) / 100;
      if (next <= last) return; // nothing more can be said without breaking the rule
      last = next;
      await send({ progress: next, message });
    },
  };
}
