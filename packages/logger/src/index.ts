/**
 * Structured JSON logs (pino) for every service. Tests pass level "silent".
 */
import { trace } from '@opentelemetry/api';
import { pino, type DestinationStream, type Logger, type LevelWithSilent } from 'pino';

export type { Logger };

/**
 * `trace_id` and `span_id` of the active span, so a line can be found from its trace and back.
 * With tracing off there is never an active span, and this is one lookup that finds nothing.
 * A new object each time: pino merges the line's own fields into it.
 */
function traceFields(): object {
  const span = trace.getActiveSpan()?.spanContext();
  return span && trace.isSpanContextValid(span) ? { trace_id: span.traceId, span_id: span.spanId } : {};
}

/**
 * @param options.name the service or component, added to every line
 * @param options.level minimum level (default "info")
 * @param options.stream where lines go (default "stdout"; a stdio MCP server keeps stdout for the protocol)
 * @param options.destination where lines go instead of `stream` (e.g. a test reading them)
 */
export function createLogger(options: { name: string; level?: LevelWithSilent; stream?: 'stdout' | 'stderr'; destination?: DestinationStream }): Logger {
  const base = { level: options.level ?? 'info', base: { service: options.name }, mixin: traceFields };
  if (options.destination) return pino(base, options.destination);
  return options.stream === 'stderr' ? pino(base, pino.destination(2)) : pino(base);
}

export const LogLevel = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
