/**
 * Async mode: `POST /run/{tool}?async=true` answers a task id and a `poll_url`; the client polls
 * it with growing waits (or the service's `Retry-After`) until the task completes, fails, or the
 * overall deadline passes. A `poll_url` is followed only on the service's own origin.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { AsyncAccepted, TaskStatus } from '@switchyard/contracts';
import { ensureOk, readJson, withinAttempt, type AttemptScope } from './attempt.js';
import { ToolDeadlineError, ToolProtocolError, ToolTaskFailedError, ToolTaskLostError, parseRetryAfter, readErrorDetail } from './errors.js';
import { unwrapRunReply } from './results.js';
import { withRetries, type RetryOptions } from './retry.js';

export interface PollOptions {
  /** First wait between polls, in ms (default 250). */
  initialDelayMs: number;
  /** Longest wait between polls, in ms (default 5000). */
  maxDelayMs: number;
  /** Growth of the wait per poll (default 1.5). */
  factor: number;
  /** Overall time for an async call, submission to result, in ms (default 10 min). */
  deadlineMs: number;
}

export const DEFAULT_POLL: PollOptions = { initialDelayMs: 250, maxDelayMs: 5000, factor: 1.5, deadlineMs: 600_000 };

export interface RemoteTask {
  taskId: string;
  pollUrl: string;
}

/** The absolute URL to poll; throws before any request when it points off the service's origin. */
export function resolvePollUrl(scope: { service: string; tool?: string | undefined }, baseUrl: string, pollUrl: string): string {
  const base = new URL(baseUrl);
  // A path like "/tasks/abc" is relative to the service URL (seed 004: GET {service_url}/tasks/{id}).
  const isPathOnly = pollUrl.startsWith('/') && !pollUrl.startsWith('//');
  let target: URL;
  try {
    target = isPathOnly ? new URL(`${base.href.replace(/\/+$/, '')}${pollUrl}`) : new URL(pollUrl, base);
  } catch {
    throw new ToolProtocolError({ ...scope, code: 'invalid_poll_url', message: `${scope.service} sent a poll_url that is not a URL: ${pollUrl}` });
  }
  if (target.origin !== base.origin) {
    throw new ToolProtocolError({ ...scope, code: 'off_origin_poll_url', message: `${scope.service} sent a poll_url on another origin (${target.origin}); it was not followed`, details: { poll_url: pollUrl } });
  }
  return target.href;
}

/** Reads the reply to an async submission: a task to poll, or a result the service finished at once. */
export function readSubmission(scope: AttemptScope, body: unknown): { task: RemoteTask } | { result: unknown } {
  const accepted = AsyncAccepted.safeParse(body);
  if (accepted.success) return { task: { taskId: accepted.data.task_id, pollUrl: accepted.data.poll_url } };
  if (body && typeof body === 'object' && 'task_id' in body) {
    throw new ToolProtocolError({ ...scope, code: 'invalid_reply', message: `${scope.service} answered an async call with a malformed task`, details: { issues: accepted.error.issues } });
  }
  return { result: unwrapRunReply(body) };
}

interface PollReply {
  status: TaskStatus;
  retryAfterMs: number | undefined;
}

async function pollOnce(options: { scope: AttemptScope; url: string; headers: Record<string, string>; fetch: typeof fetch }): Promise<PollReply> {
  const { scope } = options;
  return withinAttempt(scope, async (signal) => {
    const res = await options.fetch(options.url, { headers: options.headers, signal });
    if (res.status === 404) {
      await res.body?.cancel();
      throw new ToolTaskLostError({ ...scope, code: 'task_not_found', message: `${scope.service} no longer knows the task at ${options.url}` });
    }
    const body = await readJson(scope, await ensureOk(scope, res));
    const status = TaskStatus.safeParse(body);
    if (!status.success) throw new ToolProtocolError({ ...scope, code: 'invalid_reply', message: `${scope.service} answered a poll with something other than a task status`, details: { issues: status.error.issues } });
    return { status: status.data, retryAfterMs: parseRetryAfter(res.headers.get('retry-after')) };
  });
}

/** Polls `task` until it completes (its result), fails (ToolTaskFailedError) or `deadline` passes. */
export async function pollTask(options: {
  scope: AttemptScope;
  baseUrl: string;
  task: RemoteTask;
  headers: Record<string, string>;
  poll: PollOptions;
  retry: RetryOptions;
  /** Epoch ms by which the task must be done. */
  deadline: number;
  fetch: typeof fetch;
}): Promise<unknown> {
  const { scope, poll } = options;
  const url = resolvePollUrl(scope, options.baseUrl, options.task.pollUrl);
  let wait = poll.initialDelayMs;
  for (let polls = 1; ; polls++) {
    // A lost task will not come back by asking again: that is for the caller to decide.
    const reply = await withRetries({ retry: options.retry, signal: scope.signal, keep: (e) => e instanceof ToolTaskLostError, run: () => pollOnce({ scope, url, headers: options.headers, fetch: options.fetch }) });
    if (reply.status.status === 'completed') return unwrapRunReply(reply.status.result);
    if (reply.status.status === 'failed') {
      const detail = readErrorDetail({ error: reply.status.error });
      throw new ToolTaskFailedError({ ...scope, code: detail?.code ?? 'task_failed', message: detail?.message ?? `${scope.service} reports the task failed`, details: detail?.details });
    }
    const pause = reply.retryAfterMs ?? Math.round(wait * (0.5 + Math.random() / 2));
    if (Date.now() + pause > options.deadline) {
      throw new ToolDeadlineError({ ...scope, code: 'deadline_exceeded', message: `${scope.service} task ${options.task.taskId} was still processing after ${polls} polls at the deadline`, details: { task_id: options.task.taskId } });
    }
    await sleep(pause, undefined, { signal: scope.signal });
    wait = Math.min(poll.maxDelayMs, wait * poll.factor);
  }
}
