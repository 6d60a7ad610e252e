/**
 * A tool service's own metrics: its `POST /run/{tool}` requests by tool, mode and outcome, and
 * how long they took, with the default process metrics, in a registry of its own, served at
 * `/metrics`. A tool the service does not have is counted as `unknown`, so a caller cannot add
 * series by inventing names.
 */
import type { NextFunction, Request, Response } from 'express';
import { Counter, createMetricsRegistry, Histogram, type Registry } from '@switchyard/metrics';

export interface ToolServiceMetrics {
  registry: Registry;
  /** Middleware of `POST /run/:tool`: counts the request once its response has ended. */
  countRun(known: ReadonlySet<string>): (req: Request<{ tool: string }>, res: Response, next: NextFunction) => void;
}

const flag = (value: unknown) => value === 'true' || value === '1' || value === '';

/** How a request was answered: `ok` (2xx, an async task accepted included), `rejected` (4xx), `failed` (5xx), `aborted` (the connection closed first: a client gone, a cut stream). */
function outcomeOf(res: Response, finished: boolean): string {
  if (!finished) return 'aborted';
  if (res.statusCode >= 500) return 'failed';
  return res.statusCode >= 400 ? 'rejected' : 'ok';
}

export function createToolServiceMetrics(options: { service: string; defaultMetrics?: boolean }): ToolServiceMetrics {
  const registry = createMetricsRegistry({ defaultMetrics: options.defaultMetrics });
  const requests = new Counter({ name: 'switchyard_tool_requests_total', help: 'POST /run/{tool} requests answered by this tool service, by service, tool, mode (sync, async, stream) and outcome (ok, rejected, failed, aborted).', labelNames: ['service', 'tool', 'mode', 'outcome'], registers: [registry] });
  const duration = new Histogram({
    name: 'switchyard_tool_request_duration_seconds',
    help: 'Time from a POST /run/{tool} request to the end of its response (an async one ends when its task is accepted).',
    labelNames: ['service', 'tool', 'mode'],
    buckets: [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [registry],
  });
  return {
    registry,
    countRun: (known) => (req, res, next) => {
      const labels = { service: options.service, tool: known.has(req.params.tool) ? req.params.tool : 'unknown', mode: flag(req.query.async) ? 'async' : flag(req.query.stream) ? 'stream' : 'sync' };
      const end = duration.startTimer(labels);
      let counted = false;
      const count = (finished: boolean) => {
        if (counted) return;
        counted = true;
        end();
        requests.inc({ ...labels, outcome: outcomeOf(res, finished) });
      };
      res.once('finish', () => count(true));
      res.once('close', () => count(res.writableFinished));
      next();
    },
  };
}
