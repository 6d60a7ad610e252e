/**
 * A server span per HTTP request, as the child of the caller's span when the request carries a
 * W3C `traceparent` (the tool client sends one), else the root of a new trace (a request to the
 * API starts the trace of the runs it starts). Mounted first, so everything the request does,
 * body parsing included, happens inside the span.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes } from '@opentelemetry/api';
import { tracingEnabled } from './state.js';

interface RoutedRequest extends IncomingMessage {
  method: string;
  baseUrl?: string;
  path?: string;
  route?: { path?: unknown };
}

/** The route template (`/v1/runs/:id`), known once Express has matched one. */
function routeOf(req: RoutedRequest): string | undefined {
  return typeof req.route?.path === 'string' ? `${req.baseUrl ?? ''}${req.route.path}` : undefined;
}

/**
 * Express middleware: one SERVER span per request, named `METHOD /route`, with the method, path,
 * route and status; a 5xx marks it failed. Does nothing while tracing is off, nor for `/health` outside a trace.
 * @param options.tracer the instrumentation scope name (default "switchyard.http")
 * @param options.attributes added to every span (e.g. which of the services in a process answered)
 */
export function traceRequests(options: { tracer?: string; attributes?: Attributes } = {}) {
  const tracer = trace.getTracer(options.tracer ?? 'switchyard.http');
  return (req: RoutedRequest, res: ServerResponse, next: () => void): void => {
    const path = req.path ?? req.url ?? '';
    // Health probes come every few seconds from load balancers, launchers and the orchestrator's
    // own /health; as traces of their own they would bury the runs'. One inside a trace (a
    // breaker's probe within a tool call) keeps its span.
    if (!tracingEnabled() || (path === '/health' && !req.headers.traceparent)) return next();
    const parent = propagation.extract(ROOT_CONTEXT, req.headers);
    const span = tracer.startSpan(req.method, { kind: SpanKind.SERVER, attributes: { ...options.attributes, 'http.request.method': req.method, 'url.path': path } }, parent);
    const active = trace.setSpan(parent, span);
    // Body parsers and handlers run from the request's and response's events: bind them to the span.
    context.bind(active, req);
    context.bind(active, res);
    const end = () => {
      if (!span.isRecording()) return;
      // Express leaves the matched route on the request.
      const route = routeOf(req);
      span.updateName(route ? `${req.method} ${route}` : req.method);
      if (route) span.setAttribute('http.route', route);
      span.setAttribute('http.response.status_code', res.statusCode);
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    };
    res.once('finish', end);
    res.once('close', end);
    context.with(active, next);
  };
}
