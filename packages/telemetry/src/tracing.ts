/**
 * Starting OpenTelemetry in a service process: the NodeSDK with an OTLP/HTTP exporter, only when
 * an endpoint is configured. Off, nothing is loaded and the API stays the no-op one, so the hooks
 * in the code (spans, header injection, BullMQ's telemetry) cost nothing.
 */
import type { TelemetryConfig } from './env.js';
import { setTracingEnabled } from './state.js';

export interface RunningTracing {
  /** Whether spans are recorded and exported. */
  enabled: boolean;
  /** Exports the spans still buffered and stops; call before the process exits. */
  shutdown(): Promise<void>;
}

/**
 * @param options.service `service.name` when OTEL_SERVICE_NAME does not say otherwise
 * @param options.config the service's parsed telemetry variables (telemetryConfig)
 */
export async function startTracing(options: { service: string; config: TelemetryConfig }): Promise<RunningTracing> {
  const { tracesUrl, headers, serviceName } = options.config;
  if (!tracesUrl) return { enabled: false, shutdown: async () => undefined };
  // Loaded here, not at the top: a process that does not trace never loads the SDK.
  const [{ NodeSDK }, { OTLPTraceExporter }, { BatchSpanProcessor }, { AsyncLocalStorageContextManager }, { W3CTraceContextPropagator }, { resourceFromAttributes }, { switchyardSampler }] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/core'),
    import('@opentelemetry/resources'),
    import('./sampler.js'),
  ]);
  const sdk = new NodeSDK({
    resource: resourceFromAttributes({ 'service.name': serviceName ?? options.service }),
    autoDetectResources: false,
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: tracesUrl, headers }))],
    sampler: switchyardSampler(),
    contextManager: new AsyncLocalStorageContextManager(),
    textMapPropagator: new W3CTraceContextPropagator(),
    // Traces only: the SDK would otherwise export metrics and logs to the same endpoint.
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [],
  });
  sdk.start();
  setTracingEnabled(true);
  return {
    enabled: true,
    async shutdown() {
      setTracingEnabled(false);
      await sdk.shutdown();
    },
  };
}
