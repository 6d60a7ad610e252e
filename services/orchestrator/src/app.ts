/**
 * The orchestrator's Express app: API-key auth on `/v1`, the routes, one error shape. `/health`,
 * `/metrics` (Prometheus), the pipeline format's schema, the OpenAPI document and its reference
 * page are public, and so is the dashboard's page (it shows nothing without the key). `/v1` and
 * Bull Board at `/admin/queues` take the key or the browser session's cookie.
 */
import express, { Router, type ErrorRequestHandler, type Express } from 'express';
import { apiKeyAuth, errorMiddleware, HttpError, methodNotAllowed, notFoundHandler, unavailableGuard } from '@switchyard/http-kit';
import { RunLimitError } from '@switchyard/pipeline';
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
import { pipelineSchemaRouter, pipelinesRouter } from './routes/pipelines.js';
import { runsRouter } from './routes/runs.js';
import { storiesRouter } from './routes/stories.js';

/** `GET /metrics`; any other method answers 405 naming GET, as `/health` does. */
function metricsRouter(registry: NonNullable<AppDeps['metrics']>): Router {
  const router = Router();
  router.get('/metrics', metricsHandler(registry));
  router.all('/metrics', methodNotAllowed('GET'));
  return router;
}

/**
 * A value past a run limit (an input, a batch) is the caller's to change: 413 with the limit's
 * code, its size and the variable that sets it; nothing was written.
 */
const runLimitErrors: ErrorRequestHandler = (error: unknown, _req, _res, next) => {
  if (!(error instanceof RunLimitError)) return next(error);
  next(new HttpError({ status: 413, code: error.code, message: error.message, details: error.details }));
};

export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  // First, so that a request's span (the root of the runs it starts) covers all it does.
  app.use(traceRequests());
  app.use(healthRouter(deps));
  app.use(pipelineSchemaRouter());
  app.use(openApiRouter());
  if (deps.metrics) app.use(metricsRouter(deps.metrics));
  app.use(dashboardRouter({ apiKeys: deps.apiKeys }));
  const auth = apiKeyAuth({ keys: deps.apiKeys, sessionCookie: true });
  app.use('/v1', auth);
  // Bull Board is an Express app of its own, so its routes are no operations of this API.
  app.use(QUEUE_BOARD_PATH, auth, unavailableGuard({ unavailable: () => redisUnavailable(deps.redis) }), deps.queueBoard.handler);
  // Every /v1 route needs Redis: while it is unreachable they answer 503 within a second.
  app.use('/v1', unavailableGuard({ unavailable: () => redisUnavailable(deps.redis) }));
  app.use(storiesRouter(deps));
  app.use(runsRouter(deps));
  app.use(batchesRouter(deps));
  app.use(aceflowRouter(deps));
  app.use(pipelinesRouter(deps));
  app.use(notFoundHandler);
  app.use(runLimitErrors);
  app.use(errorMiddleware(deps.logger));
  return app;
}
