/**
 * Tracing for tests: an in-memory exporter behind a simple (synchronous) processor, installed as
 * this process's global provider with the same sampler, context manager and propagator as the
 * SDK's, so the code under test traces as it would in a service.
 */
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { switchyardSampler } from './sampler.js';
import { setTracingEnabled } from './state.js';

export type { ReadableSpan };

export interface TestTracing {
  /** Every span ended so far. */
  spans(): ReadableSpan[];
  /** Forgets the spans ended so far. */
  reset(): void;
  /** Uninstalls the provider; tracing is off again. */
  close(): Promise<void>;
}

export function startTestTracing(options: { service?: string } = {}): TestTracing {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': options.service ?? 'test' }),
    sampler: switchyardSampler(),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  setTracingEnabled(true);
  return {
    spans: () => exporter.getFinishedSpans(),
    reset: () => exporter.reset(),
    async close() {
      setTracingEnabled(false);
      await provider.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}

/** The parent span id of a span (SDK 2 names it `parentSpanContext`). */
export function parentSpanId(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}
