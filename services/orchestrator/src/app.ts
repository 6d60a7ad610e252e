/**
 * The orchestrator's Express app: API-key auth on `/v1`, the routes, one error shape. `/health`,
 * `/metrics` (Prometheus), the pipeline format's schema, the OpenAPI document and its reference
 * page are public.
 */
import express, { type Express } from 'express';
import { apiKeyAuth, errorMiddleware, methodNotAllowed, notFoundHandler, unavailableGuard } from '@switchyard/http-kit';
import { metricsHandler } from '@switchyard/metrics';
import { redisUnavailable } from '@switchyard/redis';
import type { AppDeps } from './deps.js';
import { aceflowRouter } from './routes/aceflow.js';
import { batchesRouter } from './routes/batches.js';
import { healthRouter } from './routes/health.js';
import { openApiRouter } from './routes/openapi.js';
import { pipelineSchemaRouter, pipelinesRouter } from './routes/pipelines.js';
import { runsRouter } from './routes/runs.js';
import { storiesRouter } from './routes/stories.js';

export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  app.use(healthRouter(deps));
  app.use(pipelineSchemaRouter());
  app.use(openApiRouter());
  if (deps.metrics) {
    app.get('/metrics', metricsHandler(deps.metrics));
    app.all('/metrics', methodNotAllowed('GET'));
  }
  app.use('/v1', apiKeyAuth({ keys: deps.apiKeys }));
  // Every /v1 route needs Redis: while it is unreachable they answer 503 within a second.
  app.use('/v1', unavailableGuard({ unavailable: () => redisUnavailable(deps.redis) }));
  app.use(storiesRouter(deps));
  app.use(runsRouter(deps));
  app.use(batchesRouter(deps));
  app.use(aceflowRouter(deps));
  app.use(pipelinesRouter(deps));
  app.use(notFoundHandler);
  app.use(errorMiddleware(deps.logger));
  return app;
}
