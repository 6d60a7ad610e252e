/**
 * The tracing variables every service reads (the standard OTEL_* names), spread into its env.ts.
 * Tracing is off unless OTEL_EXPORTER_OTLP_ENDPOINT is set.
 */
import { z } from 'zod';

export const telemetryEnvShape = {
  /** OTLP/HTTP collector base URL, e.g. http://127.0.0.1:4318; spans go to `<url>/v1/traces`. Unset: no tracing. */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
  /** The traces URL itself, taking precedence over the base URL (as the OTLP specification says). Default unset. */
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.url().optional(),
  /** Headers sent with every export, as `key=value,key2=value2` (e.g. a collector's API key). Default none. */
  OTEL_EXPORTER_OTLP_HEADERS: z.string().optional(),
  /** `service.name` of this process's spans. Default the service's own name (orchestrator, workers, tool-services). */
  OTEL_SERVICE_NAME: z.string().min(1).optional(),
};

export interface TelemetryConfig {
  /** Where spans are sent (OTLP over HTTP); undefined turns tracing off. */
  tracesUrl: string | undefined;
  headers: Record<string, string>;
  serviceName: string | undefined;
}

function parseHeaders(list: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of (list ?? '').split(',')) {
    const at = pair.indexOf('=');
    if (at > 0) headers[decodeURIComponent(pair.slice(0, at).trim())] = decodeURIComponent(pair.slice(at + 1).trim());
  }
  return headers;
}

/** The parsed telemetryEnvShape variables. */
export function telemetryConfig(env: { OTEL_EXPORTER_OTLP_ENDPOINT?: string | undefined; OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string | undefined; OTEL_EXPORTER_OTLP_HEADERS?: string | undefined; OTEL_SERVICE_NAME?: string | undefined }): TelemetryConfig {
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.replace(/\/+$/, '');
  return {
    tracesUrl: env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? (base ? `${base}/v1/traces` : undefined),
    headers: parseHeaders(env.OTEL_EXPORTER_OTLP_HEADERS),
    serviceName: env.OTEL_SERVICE_NAME,
  };
}
