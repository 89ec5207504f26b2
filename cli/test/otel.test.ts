// OpenTelemetry across processes: a task enqueued by `readpast enqueue` inside a trace (TRACEPARENT in its
// environment), run by `readpast worker` whose OTEL_EXPORTER_OTLP_ENDPOINT points at a small OTLP/HTTP receiver this
// test starts (JSON protocol): the receiver gets the attempt's span, with the task's token, in the caller's trace and
// under its span. Without the OTEL_* variables the worker starts no SDK and the receiver hears nothing.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cliOk, statusOf, tempDb, type TempDb, waitFor, WorkerProcess } from './helpers';

/** The receiver's port: one the system gives when it listens (a fixed one met a browser test's server there). */
let receiverPort = 0;
const TRACE_ID = '5b8efff798038103d269b633813fc60c';
const CALLER_SPAN = 'eee19b7ec3c1b174';
const TRACEPARENT = `00-${TRACE_ID}-${CALLER_SPAN}-01`;

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: { stringValue?: string; intValue?: string | number } }[];
}
interface OtlpExport {
  resourceSpans: { resource: { attributes: OtlpSpan['attributes'] }; scopeSpans: { scope: { name: string }; spans: OtlpSpan[] }[] }[];
}

const exports: { path: string; contentType: string; body: OtlpExport }[] = [];
let server: Server;
let db: TempDb;
let worker: WorkerProcess | null = null;

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        exports.push({ path: req.url ?? '', contentType: req.headers['content-type'] ?? '', body: JSON.parse(text) as OtlpExport });
      } catch {
        exports.push({ path: req.url ?? '', contentType: req.headers['content-type'] ?? '', body: { resourceSpans: [] } });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiverPort = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

afterEach(async () => {
  worker?.kill();
  worker = null;
  db?.cleanup();
  exports.length = 0;
});

const attr = (s: { attributes: OtlpSpan['attributes'] }, key: string) => {
  const v = s.attributes.find((a) => a.key === key)?.value;
  return v?.stringValue ?? (v?.intValue === undefined ? undefined : Number(v.intValue));
};
const spans = () =>
  exports.flatMap((e) => e.body.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans.map((span) => ({ span, r })))));

describe('readpast worker exports its attempts over OTLP', () => {
  it('the attempt span of a task the CLI enqueued inside a trace reaches the receiver, with its token', async () => {
    db = tempDb();
    const token = (await cliOk(['enqueue', '--handler', 'demo.echo', '--payload', '{"n":1}'], { env: { ...db.env, TRACEPARENT } })).trim();
    expect((await statusOf(token, db)).traceId).toBe(TRACE_ID);
    worker = new WorkerProcess(['--concurrency', '1'], {
      env: {
        ...db.env,
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiverPort}`,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_SERVICE_NAME: 'readpast-test-worker',
        OTEL_BSP_SCHEDULE_DELAY: '200',
      },
    });
    await worker.started();
    expect(worker.logs().find((l) => l.msg === 'tracing started (OpenTelemetry)')?.exporters).toEqual(['otlp (http/json)']);
    const found = await waitFor(() => spans().find(({ span }) => attr(span, 'messaging.message.id') === token), {
      timeoutMs: 30_000,
      what: 'the attempt span at the receiver',
      workers: [worker],
    });
    const { span, r } = found;
    expect(span.name).toBe('process default');
    expect(span.kind).toBe(5); // CONSUMER
    expect(span.traceId).toBe(TRACE_ID);
    expect(span.parentSpanId).toBe(CALLER_SPAN);
    expect(attr(span, 'messaging.system')).toBe('readpast');
    expect(attr(span, 'readpast.outcome')).toBe('succeeded');
    expect(attr(span, 'readpast.task.command')).toBe('demo.echo');
    expect(attr(r.resource, 'service.name')).toBe('readpast-test-worker');
    const post = exports.find((e) => e.body.resourceSpans.length)!;
    expect(post.path).toBe('/v1/traces');
    expect(post.contentType).toContain('application/json');
    expect((await worker.stop()).code).toBe(0);
    // the attempt's own span is kept with it
    expect((await statusOf(token, db)).history[0]!.traceId).toBe(TRACE_ID);
  });

  it('without the OTEL_* variables no SDK starts and nothing is exported', async () => {
    db = tempDb();
    const token = (await cliOk(['enqueue', '--handler', 'demo.echo'], db)).trim();
    const env = Object.fromEntries(Object.entries(db.env).filter(([k]) => !k.startsWith('OTEL_'))) as NodeJS.ProcessEnv;
    worker = new WorkerProcess(['--concurrency', '1'], { env });
    await worker.started();
    await waitFor(async () => (await statusOf(token, db)).status === 'succeeded', { what: 'the task to succeed', workers: [worker] });
    expect((await worker.stop()).code).toBe(0);
    expect(worker.logs().some((l) => l.msg === 'tracing started (OpenTelemetry)')).toBe(false);
    expect(exports).toEqual([]);
    const s = await statusOf(token, db);
    expect(s.traceId).toBeNull();
    expect(s.history[0]!.traceId).toBeNull();
  });
});
