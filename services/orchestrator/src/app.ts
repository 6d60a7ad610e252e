/**
 * The orchestrator's Express app: API-key auth on `/v1`, the routes, one error shape. `/health`, the probes (`/livez`, `/readyz`),
 * `/metrics` (Prometheus), the pipeline format's schema, the OpenAPI document and its reference
 * page are public, and so is the dashboard's page (it shows nothing without the key). `/v1` and
 * Bull Board at `/admin/queues` take the key or the browser session's cookie, and each route
 * then needs the scope route-scopes.ts names for it.
 */
import express, { Router, type ErrorRequestHandler, type Express } from 'express';
import { apiKeyAuth, errorMiddleware, HttpError, methodNotAllowed, notFoundHandler, probesRouter, unavailableGuard } from '@switchyard/http-kit';
import { RunLimitError, TooManyRunsError, UnusablePipelineError } from '@switchyard/pipeline';
import { metricsHandler } from '@switchyard/metrics';
import { redisUnavailable } from '@switchyard/redis';
import { traceRequests } from '@switchyard/telemetry';
import { dashboardRouter } from './dashboard/router.js';
import { QUEUE_BOARD_PATH } from './dashboard/queue-board.js';
import type { AppDeps } from './deps.js';
import { aceflowRouter } from './routes/aceflow.js';
import { batchesRouter } from './routes/batches.js';
import { healthRouter } from './routes/health.js';
import { openApiRouter } from './routes/openapi.js';
import { queueBoardGuard, scopeGuard } from './route-scopes.js';
import { pipelineSchemaRouter, pipelinesRouter } from './routes/pipelines.js';
import { runsRouter } from './routes/runs.js';
import { schedulesRouter } from './routes/schedules.js';
import { waitsRouter } from './routes/waits.js';
import { storiesRouter } from './routes/stories.js';

/** `GET /metrics`; any other method answers 405 naming GET, as `/health` does. */
function metricsRouter(registry: NonNullable<AppDeps['metrics']>): Router {
  const router = Router();
  router.get('/metrics', metricsHandler(registry));
  router.all('/metrics', methodNotAllowed('GET'));
  return router;
}

/**
 * A stored version that no longer compiles (stored before a check it fails), met by any route
 * that starts runs: a conflict the caller resolves by deleting it, not an internal error.
 */
const unusablePipelines: ErrorRequestHandler = (error: unknown, _req, _res, next) => {
  if (!(error instanceof UnusablePipelineError)) return next(error);
  next(new HttpError({ status: 409, code: 'pipeline_unusable', message: error.message, details: { pipeline: error.pipeline, version: error.version, problems: error.problems.slice(0, 50) } }));
};

/**
 * A value past a run limit (an input, a batch) is the caller's to change: 413 with the limit's
 * code, its size and the variable that sets it; nothing was written.
 */
const runLimitErrors: ErrorRequestHandler = (error: unknown, _req, _res, next) => {
  if (!(error instanceof RunLimitError)) return next(error);
  next(new HttpError({ status: 413, code: error.code, message: error.message, details: error.details }));
};

/**
 * A key holding as many runs as it may (RUNS_MAX_LIVE_PER_KEY), or a request that would pass
 * that: 429 `too_many_runs` with what it holds and the bound; nothing was written.
 */
const tooManyRuns: ErrorRequestHandler = (error: unknown, _req, _res, next) => {
  if (!(error instanceof TooManyRunsError)) return next(error);
  next(new HttpError({ status: 429, code: error.code, message: error.message, details: error.details, headers: { 'Retry-After': '5' } }));
};

export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  // Whose address wrong keys are counted under (clientAddress reads req.ip).
  app.set('trust proxy', deps.trustProxy ?? false);
  // First, so that a request's span (the root of the runs it starts) covers all it does.
  app.use(traceRequests());
  app.use(healthRouter(deps));
  if (deps.probes) app.use(probesRouter(deps.probes));
  app.use(pipelineSchemaRouter());
  app.use(openApiRouter());
  if (deps.metrics) app.use(metricsRouter(deps.metrics));
  app.use(dashboardRouter({ keys: deps.keys, sessions: deps.sessions, failedKeys: deps.failedKeys }));
  const auth = apiKeyAuth({ keys: deps.keys, sessions: deps.sessions, failedKeys: deps.failedKeys });
  app.use('/v1', auth);
  // Before any route reads its body or Redis: a key without the scope is refused first.
  app.use(scopeGuard());
  // Bull Board is an Express app of its own, so its routes are no operations of this API.
  app.use(QUEUE_BOARD_PATH, auth, queueBoardGuard, unavailableGuard({ unavailable: () => redisUnavailable(deps.redis) }), deps.queueBoard.handler);
  // Every /v1 route needs Redis: while it is unreachable they answer 503 within a second.
  app.use('/v1', unavailableGuard({ unavailable: () => redisUnavailable(deps.redis) }));
  app.use(storiesRouter(deps));
  app.use(runsRouter(deps));
  app.use(batchesRouter(deps));
  app.use(aceflowRouter(deps));
  app.use(pipelinesRouter(deps));
  app.use(schedulesRouter(deps));
  app.use(waitsRouter(deps));
  app.use(notFoundHandler);
  app.use(unusablePipelines);
  app.use(runLimitErrors);
  app.use(tooManyRuns);
  app.use(errorMiddleware(deps.logger));
  return app;
}
