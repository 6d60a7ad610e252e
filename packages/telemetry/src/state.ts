/**
 * Whether this process traces. OpenTelemetry's API is global (a tracer provider per process), so
 * is this flag: set when the SDK (or a test's in-memory provider) is installed, read where a hook
 * would otherwise cost something with tracing off (BullMQ's telemetry, the HTTP middleware).
 */
let enabled = false;

export function tracingEnabled(): boolean {
  return enabled;
}

/** For startTracing and the test provider only. */
export function setTracingEnabled(on: boolean): void {
  enabled = on;
}
