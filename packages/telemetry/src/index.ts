export { telemetryEnvShape, telemetryConfig } from './env.js';
export type { TelemetryConfig } from './env.js';
export { startTracing } from './tracing.js';
export type { RunningTracing } from './tracing.js';
export { tracingEnabled } from './state.js';
export { bullmqTelemetry } from './bullmq.js';
export { traceRequests } from './http.js';
export { inSpan, annotateActiveSpan, traceHeaders, tracedFetch, SpanKind } from './spans.js';
export type { Span } from './spans.js';
