/**
 * Spans around our own work and W3C trace context on outgoing requests. With tracing off every
 * helper goes straight to the work: no span, no header, no allocation worth the name.
 */
import { context, INVALID_SPAN_CONTEXT, propagation, SpanKind, SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';
import { tracingEnabled } from './state.js';

export { SpanKind };
export type { Span };

const TRACER = 'switchyard';
const NO_SPAN = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

/**
 * Runs `work` in a new span, a child of the active one, which is active inside `work` (so its
 * requests and log lines carry it). The span ends when `work` settles; a throw marks it failed.
 * @param options.kind default INTERNAL
 */
export async function inSpan<T>(name: string, options: { kind?: SpanKind; attributes?: Attributes }, work: (span: Span) => Promise<T>): Promise<T> {
  if (!tracingEnabled()) return work(NO_SPAN);
  return trace.getTracer(TRACER).startActiveSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, ...(options.attributes ? { attributes: options.attributes } : {}) }, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.recordException(error instanceof Error ? error : String(error));
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Sets attributes on the active span, if any (e.g. the run a job belongs to). */
export function annotateActiveSpan(attributes: Attributes): void {
  if (tracingEnabled()) trace.getActiveSpan()?.setAttributes(attributes);
}

/** The `traceparent` (and `tracestate`) of the active span, as request headers; empty without one. */
export function traceHeaders(): Record<string, string> {
  const headers: Record<string, string> = {};
  if (tracingEnabled() && trace.getActiveSpan()) propagation.inject(context.active(), headers);
  return headers;
}

/** A fetch that sends the active span's W3C trace context with every request (the given fetch when tracing is off). */
export function tracedFetch(base: typeof fetch): typeof fetch {
  return (input, init) => {
    const extra = traceHeaders();
    if (!('traceparent' in extra)) return base(input, init);
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    for (const [name, value] of Object.entries(extra)) headers.set(name, value);
    return base(input, { ...init, headers });
  };
}

