// POST /api/tasks and POST /api/flows honour a request's W3C `traceparent` (and `tracestate`) header, on a real SQLite
// file (the engine the dashboard opens): with no SDK registered the task stores the caller's context itself; with
// one, the enqueue's `send` span is the header span's child and the task stores the send span's context. A malformed
// header is ignored, never an error.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { context, propagation, SpanKind, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'readpast-trace-api-'));
process.env.READPAST_DATABASE_URL = `sqlite:${join(dir, 'db.sqlite')}`;
process.env.READPAST_WORKERS = '0';

const tasks = await import('./route');
const one = await import('./[token]/route');
const flows = await import('../flows/route');
const { getEngine, stopEngine } = await import('@/lib/server/engine');

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

beforeAll(async () => {
  await getEngine();
});

afterAll(async () => {
  await stopEngine(0);
  await provider.shutdown();
  trace.disable();
  context.disable();
  propagation.disable();
  rmSync(dir, { recursive: true, force: true });
});

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const SPAN_ID = 'b7ad6b7169203331';
const HEADER = `00-${TRACE_ID}-${SPAN_ID}-01`;
const BASE = 'http://127.0.0.1:3000';
const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  new Request(BASE + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
const later = () => new Date(Date.now() + 3_600_000).toISOString();

async function traceIdOf(token: string): Promise<string | null> {
  const res = await one.GET(new Request(`${BASE}/api/tasks/${token}`), { params: Promise.resolve({ token }) });
  return ((await res.json()) as { traceId: string | null }).traceId;
}

async function enqueue(headers: Record<string, string>): Promise<string> {
  const res = await tasks.POST(post('/api/tasks', { command: 'demo.echo', runAt: later() }, headers));
  expect(res.status).toBe(201);
  return ((await res.json()) as { token: string }).token;
}

describe('a traceparent header on POST /api/tasks and /api/flows', () => {
  it('no SDK: the task stores the caller’s context; no header or a bad one: nothing', async () => {
    expect(await traceIdOf(await enqueue({ traceparent: HEADER, tracestate: 'v=1' }))).toBe(TRACE_ID);
    expect(await traceIdOf(await enqueue({}))).toBeNull();
    expect(await traceIdOf(await enqueue({ traceparent: 'not-a-traceparent' }))).toBeNull();
  });

  it('with an SDK: the send span is the header span’s child, and the task carries the send span', async () => {
    provider.register();
    exporter.reset();
    const token = await enqueue({ traceparent: HEADER });
    const [send] = exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.PRODUCER);
    expect(send!.name).toBe('send default');
    expect(send!.spanContext().traceId).toBe(TRACE_ID);
    expect(send!.parentSpanContext?.spanId).toBe(SPAN_ID);
    expect(send!.attributes['messaging.message.id']).toBe(token);
    expect(await traceIdOf(token)).toBe(TRACE_ID);

    exporter.reset();
    const flow = { nodes: [{ id: 'a', command: 'demo.echo', runAt: later() }] };
    const res = await flows.POST(post('/api/flows', flow, { traceparent: HEADER }));
    expect(res.status).toBe(201);
    const { tokens } = (await res.json()) as { tokens: Record<string, string> };
    const [flowSend] = exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.PRODUCER);
    expect(flowSend!.parentSpanContext?.spanId).toBe(SPAN_ID);
    expect(await traceIdOf(tokens.a!)).toBe(TRACE_ID);
  });
});
