// The OpenTelemetry SDK of readpast's own processes — `readpast worker` and the dashboard (`readpast dashboard`,
// `npm start`) — started only when the standard variables ask for it (`wantsTelemetry`): OTEL_TRACES_EXPORTER
// (otlp, console; none: off), OTEL_EXPORTER_OTLP_ENDPOINT / OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, OTEL_SERVICE_NAME;
// OTEL_SDK_DISABLED=true turns it off. Traces only, exported over OTLP/HTTP, protobuf or JSON as
// OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL says (http/protobuf by default; grpc is not carried: refused with a message).
// The exporters read their own variables (endpoint, headers, timeout, compression); the provider reads
// OTEL_TRACES_SAMPLER(_ARG) and OTEL_BSP_*; the resource OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME.
// The SDK packages are imported here, lazily, and only from these processes' start: the library (`readpast`'s main
// export) depends on @opentelemetry/api alone, and with no SDK registered its tracing is the API's no-op. A process
// that registered an SDK already (`node --import …`, or an application's own) keeps it: nothing is started here.
import { ProxyTracerProvider, trace } from '@opentelemetry/api';

export type TelemetryEnv = Record<string, string | undefined>;

/** A started SDK: `shutdown` flushes what is buffered (call it before the process exits). */
export interface Telemetry {
  exporters: string[];
  shutdown(): Promise<void>;
}

const list = (v: string | undefined) =>
  (v ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);

/** Which exporters the environment asks for (empty: start nothing). */
export function wantsTelemetry(env: TelemetryEnv = process.env): string[] {
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return [];
  const asked = list(env.OTEL_TRACES_EXPORTER);
  if (asked.length) return asked.includes('none') ? [] : asked;
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  return endpoint || env.OTEL_SERVICE_NAME ? ['otlp'] : [];
}

/** The OTLP protocol asked for: http/protobuf (default) or http/json; anything else is null. */
export function otlpProtocol(env: TelemetryEnv = process.env): 'http/protobuf' | 'http/json' | null {
  const p = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL || env.OTEL_EXPORTER_OTLP_PROTOCOL || 'http/protobuf').trim().toLowerCase();
  return p === 'http/protobuf' || p === 'http/json' ? p : null;
}

/** Whether a tracer provider is registered already (an application's, or `node --import` instrumentation's). */
function registeredAlready(): boolean {
  const current = trace.getTracerProvider();
  const delegate = current instanceof ProxyTracerProvider ? current.getDelegate() : current;
  // the API's no-op provider is one object: a fresh proxy hands back the same one
  return delegate !== new ProxyTracerProvider().getDelegate();
}

/**
 * Start the SDK when the environment asks for it (null: it does not, one is registered already, or what it asks for
 * cannot be done — said through `warn`). `service`: service.name when OTEL_SERVICE_NAME gives none.
 */
export async function startTelemetry(
  service: string,
  warn: (message: string) => void = (m) => console.warn(`readpast: ${m}`),
  env: TelemetryEnv = process.env,
): Promise<Telemetry | null> {
  const asked = wantsTelemetry(env);
  if (!asked.length || registeredAlready()) return null;
  const sdk = await import('@opentelemetry/sdk-trace-node');
  const { defaultResource, detectResources, envDetector, hostDetector, processDetector, resourceFromAttributes } = await import(
    '@opentelemetry/resources'
  );
  const processors = [];
  const used: string[] = [];
  for (const name of asked) {
    if (name === 'console') {
      processors.push(new sdk.SimpleSpanProcessor(new sdk.ConsoleSpanExporter()));
      used.push(name);
    } else if (name === 'otlp') {
      const protocol = otlpProtocol(env);
      if (!protocol) {
        warn('OpenTelemetry: OTLP over grpc is not included; set OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf (or http/json)');
        continue;
      }
      const exporter =
        protocol === 'http/json'
          ? new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter()
          : new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter();
      processors.push(new sdk.BatchSpanProcessor(exporter));
      used.push(`otlp (${protocol})`);
    } else warn(`OpenTelemetry: OTEL_TRACES_EXPORTER ${JSON.stringify(name)} is not one readpast starts (otlp, console, none)`);
  }
  if (!processors.length) return null;
  const detected = detectResources({ detectors: [envDetector, hostDetector, processDetector] });
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': service }))
    .merge(detected);
  const provider = new sdk.NodeTracerProvider({ resource, spanProcessors: processors });
  // the AsyncLocalStorage context manager and the W3C propagators, as the Node SDK registers them
  provider.register();
  let stopped: Promise<void> | null = null;
  return {
    exporters: used,
    shutdown: () => (stopped ??= provider.shutdown().catch((err: unknown) => warn(`OpenTelemetry: shutdown: ${String(err)}`))),
  };
}
