/**
 * One reference tool service (seed 004): `GET /tools`, `POST /run/{tool}` in sync, async
 * (`?async=true`) and stream (`?stream=true`) modes, `GET|DELETE /tasks/{id}`, `GET /health`, and
 * `GET /metrics` (Prometheus; public, like `/health`).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import express, { type Express, type Request, type Response } from 'express';
import { ErrorCodes } from '@switchyard/contracts';
import { apiKeyAuth, errorMiddleware, HttpError, jsonBody, notFoundHandler } from '@switchyard/http-kit';
import type { Logger } from '@switchyard/logger';
import { metricsHandler } from '@switchyard/metrics';
import { traceRequests } from '@switchyard/telemetry';
import type { StoryAuthor } from './authors/author.js';
import { shouldInjectFailure, type FaultKnobs } from './faults.js';
import { createToolServiceMetrics, type ToolServiceMetrics } from './metrics.js';
import { toErrorDetail } from './run-errors.js';
import { streamRun } from './sse-run.js';
import { TaskStore, type TaskStoreOptions } from './task-store.js';
import { publishedInputSchema, type ToolDefinition } from './tools.js';

export interface ToolServiceOptions {
  /** Service name reported by /health, e.g. "search_service". */
  name: string;
  tools: readonly ToolDefinition[];
  author: StoryAuthor;
  /** Accepted API keys; empty means the service is open (local use only). */
  apiKeys: readonly string[];
  /** Live fault knobs (see faults.ts). */
  faults: FaultKnobs;
  logger: Logger;
  /** Largest accepted request body (default "1mb"). */
  bodyLimit?: string;
  /** Milliseconds between SSE keep-alive comments (default 15000). */
  heartbeatMs?: number;
  /** How long finished async tasks stay readable, in ms (default 1 h). */
  taskRetentionMs?: number;
  /** How long a finished task stays readable once its result has been read, and finished tasks kept at most (see TaskStore). */
  tasks?: Pick<TaskStoreOptions, 'readRetentionMs' | 'maxFinished'>;
  /** Served at `/metrics` and fed by `/run/{tool}` (default: a registry of this app's own). */
  metrics?: ToolServiceMetrics;
}

function flag(value: unknown): boolean {
  return value === 'true' || value === '1' || value === '';
}

export function createToolServiceApp(options: ToolServiceOptions): Express {
  const app = express();
  const tasks = new TaskStore({ retentionMs: options.taskRetentionMs, ...options.tasks });
  const byName = new Map<string, ToolDefinition>(options.tools.map((tool) => [tool.name, tool]));
  const metrics = options.metrics ?? createToolServiceMetrics({ service: options.name.replace(/_service$/, '') });
  app.disable('x-powered-by');
  // A caller's `traceparent` makes this request's span the child of its tool-call span.
  app.use(traceRequests({ attributes: { 'switchyard.tool.service': options.name } }));
  app.get('/metrics', metricsHandler(metrics.registry));
  app.use(jsonBody({ limit: options.bodyLimit ?? '1mb' }));

  app.get('/health', (_req, res) => {
    const healthy = !options.faults.unhealthy;
    res.status(healthy ? 200 : 503).json({
      status: healthy ? 'healthy' : 'unhealthy',
      service: options.name,
      author: options.author.name,
      tools: [...byName.keys()],
    });
  });

  if (options.apiKeys.length > 0) app.use(apiKeyAuth({ keys: options.apiKeys, realm: options.name }));

  app.get('/tools', (_req, res) => {
    res.json(options.tools.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: publishedInputSchema(tool) })));
  });

  app.post('/run/:tool', metrics.countRun(new Set(byName.keys())), async (req: Request<{ tool: string }>, res: Response) => {
    const tool = byName.get(req.params.tool);
    if (!tool) throw new HttpError({ status: 404, code: ErrorCodes.toolNotFound, message: `Tool '${req.params.tool}' does not exist` });
    const input = tool.input.parse(req.body ?? {});
    injectFailure(options.faults);
    if (options.faults.latencyMs > 0) await sleep(options.faults.latencyMs);

    if (flag(req.query.async)) {
      const taskId = tasks.start(async (signal) => {
        if (options.faults.taskMs > 0) await sleep(options.faults.taskMs, undefined, { signal });
        return tool.run(options.author, input, { signal });
      }, toErrorDetail);
      res.status(202).location(`/tasks/${taskId}`).json({ task_id: taskId, status: 'processing', poll_url: `/tasks/${taskId}` });
      return;
    }
    if (flag(req.query.stream)) {
      await streamRun({ res, tool, input, author: options.author, faults: options.faults, heartbeatMs: options.heartbeatMs ?? 15_000 });
      return;
    }
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    const started = performance.now();
    const result = await tool.run(options.author, input, { signal: abort.signal });
    res.json({ result, metadata: { execution_time: Number(((performance.now() - started) / 1000).toFixed(3)), status: 'success' } });
  });

  app.get('/tasks/:id', (req: Request<{ id: string }>, res) => {
    const status = tasks.poll(req.params.id, options.faults.asyncPollsNeeded);
    if (!status) throw new HttpError({ status: 404, code: ErrorCodes.taskNotFound, message: `Task '${req.params.id}' does not exist` });
    res.json(status);
  });

  app.delete('/tasks/:id', (req: Request<{ id: string }>, res) => {
    if (!tasks.cancel(req.params.id)) throw new HttpError({ status: 404, code: ErrorCodes.taskNotFound, message: `Task '${req.params.id}' does not exist` });
    res.status(204).end();
  });

  app.use(notFoundHandler);
  app.use(errorMiddleware(options.logger));
  return app;
}

function injectFailure(faults: FaultKnobs): void {
  if (!shouldInjectFailure(faults)) return;
  const unavailable = faults.failureStatus === 503 || faults.failureStatus === 429;
  throw new HttpError({
    status: faults.failureStatus,
    code: unavailable ? ErrorCodes.serviceUnavailable : ErrorCodes.internalError,
    message: faults.failureStatus === 429 ? 'Too many requests (injected fault)' : unavailable ? 'The service is temporarily unavailable (injected fault)' : 'The service failed (injected fault)',
    headers: unavailable && faults.retryAfterSeconds > 0 ? { 'Retry-After': String(faults.retryAfterSeconds) } : {},
  });
}
