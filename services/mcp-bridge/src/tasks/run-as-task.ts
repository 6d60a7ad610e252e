/**
 * A tool call made as an MCP task: the task is created and answered at once, the call runs on in
 * this process, and its result (or failure) is stored for `tasks/result`. A `tasks/cancel` from
 * any bridge marks the task cancelled in Redis; the running call sees it within a second and is
 * aborted, and its result is then dropped.
 */
import type { RequestTaskStore } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, CreateTaskResult } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '@switchyard/logger';

export interface RunAsTaskOptions {
  store: RequestTaskStore;
  /** Requested lifetime in ms; the store applies its default and ceiling. */
  ttl?: number | undefined;
  /** How often the call checks whether the task was cancelled, in ms (default 1000). */
  watchMs?: number;
  logger: Logger;
  /** The call itself; `taskId` is known by the time it starts. */
  run(signal: AbortSignal, taskId: string): Promise<CallToolResult>;
}

export async function runAsTask(options: RunAsTaskOptions): Promise<CreateTaskResult> {
  const task = await options.store.createTask({ ttl: options.ttl, pollInterval: 1000 });
  const controller = new AbortController();
  const watch = setInterval(() => {
    options.store.getTask(task.taskId).then(
      (current) => current.status === 'cancelled' && controller.abort(),
      () => controller.abort(), // the task is gone: nobody will read the result
    );
  }, options.watchMs ?? 1000);
  watch.unref();

  void (async () => {
    let result: CallToolResult;
    try {
      result = await options.run(controller.signal, task.taskId);
    } catch (error) {
      options.logger.error({ err: error, task: task.taskId }, 'task failed');
      result = { content: [{ type: 'text', text: JSON.stringify({ error: { code: 'internal_error', message: 'The call failed unexpectedly; the failure is logged' } }) }], isError: true };
    }
    clearInterval(watch);
    if (controller.signal.aborted) return;
    // Storing also notifies the client; a session closed meanwhile has nobody to notify.
    await options.store.storeTaskResult(task.taskId, result.isError ? 'failed' : 'completed', result).catch((error: unknown) => options.logger.debug({ err: error, task: task.taskId }, 'task result stored without notification'));
  })();
  return { task };
}
