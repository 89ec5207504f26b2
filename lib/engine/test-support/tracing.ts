// An OpenTelemetry SDK for one test file: a tracer provider with an in-memory exporter, registered before the
// file's tests (or the describe block's, called inside one) and shut down after, the API's globals disabled so the
// next file starts with none.
import { context, propagation, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { afterAll, beforeAll } from 'vitest';

/** Register the SDK for these tests; the exporter that holds every span they end. */
export function inMemoryTracing(): InMemorySpanExporter {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  beforeAll(() => {
    provider.register();
  });
  afterAll(async () => {
    await provider.shutdown();
    trace.disable();
    context.disable();
    propagation.disable();
  });
  return exporter;
}
