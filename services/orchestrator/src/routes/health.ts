/**
 * `GET /health`: Redis and each tool service; 200 when all are healthy, 503 when any is not.
 */
import { Router } from 'express';
import { methodNotAllowed } from '@switchyard/http-kit';
import type { AppDeps } from '../deps.js';

export function healthRouter(deps: AppDeps): Router {
  const router = Router();
  router.get('/health', async (_req, res) => {
    const report = await deps.health();
    res.status(report.status === 'healthy' ? 200 : 503).json(report);
  });
  router.all('/health', methodNotAllowed('GET'));

  return router;
}
