// OpenTelemetry on a real SQLite file with the SDK's in-memory exporter: an enqueue inside an active span, and the
// first attempt's span its child in the same trace; a task that fails once then succeeds — two attempt spans, the
// first with error status, the second the root of a new trace linked to the enqueue's context and to the attempt
// before it; a sql task's database span with its database and session; a flow child linking to its parents'
// attempts; a given traceparent continued; a schedule's fire traced; nothing stored without a context.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HandlerRegistry, sleep } from '../engine/handlers';
import { inMemoryTracing } from '../engine/test-support/tracing';
import { Maintenance } from '../engine/maintenance';
import type { Pool } from '../engine/pool';
import type { Store } from '../engine/ports';
import { silentLogger } from '../engine/logger';
import { openStore } from './open';
import { Readpast } from './readpast';

const exporter = inMemoryTracing();

let dir: string;
let rp: Readpast;
let store: Store;
let pool: Pool | null;
let failures: Map<string, number>;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'readpast-otel-'));
  failures = new Map();
  const registry = new HandlerRegistry();
  registry.register('t.ok', async (p) => p);
  registry.register('t.slow', (_p, ctx) => sleep(60_000, ctx.signal));
  // fails as many times as its payload says, then succeeds
  registry.register('t.flaky', async (p: { key: string; fail: number }) => {
    const n = failures.get(p.key) ?? 0;
    failures.set(p.key, n + 1);
    if (n < p.fail) throw new Error(`failure ${n + 1}`);
    return { after: n };
  });
  store = await openStore(`sqlite:${join(dir, 'db.sqlite')}`);
  rp = new Readpast(store, { registry });
  exporter.reset();
  pool = null;
});

afterEach(async () => {
  await pool?.stop(0);
  await rp.close();
  rmSync(dir, { recursive: true, force: true });
});

async function run(): Promise<void> {
  pool = rp.createPool({ concurrency: 2, pollMs: 20, heartbeatMs: 50 });
  await pool.start();
}

async function until<T>(fn: () => Promise<T> | T, ok: (v: T) => boolean, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`condition not met in ${ms} ms; last value ${JSON.stringify(v)}`);
    await sleep(20);
  }
}

const spans = () => exporter.getFinishedSpans();
const contextOfHeader = (traceparent: string) => propagation.extract(context.active(), { traceparent });
const named = (name: string) => spans().filter((s) => s.name === name);
const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId;
/** the attempt spans of a task, in attempt order */
const attemptsOf = (token: string) =>
  until(
    () => spans().filter((s) => s.kind === SpanKind.CONSUMER && s.attributes['messaging.message.id'] === token),
    (l) => l.length > 0,
  );

describe('OpenTelemetry', () => {
  it('an enqueue inside an active span: its send span is a child, and the first attempt a child of that, in one trace', async () => {
    const tracer = trace.getTracer('test');
    const token = await tracer.startActiveSpan('POST /orders', async (request) => {
      const r = await rp.enqueue({ command: 't.ok', queue: 'orders', payload: { n: 1 } });
      request.end();
      return r.token;
    });
    const [request] = named('POST /orders');
    const [send] = named('send orders');
    expect(send!.kind).toBe(SpanKind.PRODUCER);
    expect(send!.spanContext().traceId).toBe(request!.spanContext().traceId);
    expect(parentOf(send!)).toBe(request!.spanContext().spanId);
    expect(send!.attributes).toMatchObject({
      'messaging.system': 'readpast',
      'messaging.operation.type': 'send',
      'messaging.destination.name': 'orders',
      'messaging.message.id': token,
    });
    // the task carries the send span's context
    expect((await rp.status(token)).traceId).toBe(request!.spanContext().traceId);

    await run();
    const [attempt] = await attemptsOf(token);
    expect(attempt!.name).toBe('process orders');
    expect(attempt!.spanContext().traceId).toBe(request!.spanContext().traceId);
    expect(parentOf(attempt!)).toBe(send!.spanContext().spanId);
    expect(attempt!.links).toEqual([]);
    expect(attempt!.attributes).toMatchObject({
      'messaging.system': 'readpast',
      'messaging.operation.type': 'process',
      'messaging.destination.name': 'orders',
      'messaging.message.id': token,
      'readpast.task.command': 't.ok',
      'readpast.attempt': 1,
      'readpast.outcome': 'succeeded',
    });
    expect(attempt!.attributes['readpast.worker.id']).toMatch(/-\d+$/);
    expect(attempt!.status.code).not.toBe(SpanStatusCode.ERROR);
    const s = await until(
      () => rp.status(token),
      (s) => s.history[0]?.traceId != null,
    );
    expect(s.history[0]!.traceId).toBe(attempt!.spanContext().traceId);
  });

  it('fails once then succeeds: two attempt spans, the first an error, the second a new root linked to both', async () => {
    const { token } = await trace
      .getTracer('test')
      .startActiveSpan('job', async (span) => rp.enqueue({ command: 't.flaky', payload: { key: 'a', fail: 1 } }).finally(() => span.end()));
    await run();
    const attempts = await until(
      () => spans().filter((s) => s.attributes['messaging.message.id'] === token && s.kind === SpanKind.CONSUMER),
      (l) => l.length === 2,
    );
    const [first, second] = attempts.sort((a, b) => Number(a.attributes['readpast.attempt']) - Number(b.attributes['readpast.attempt']));
    const [send] = named('send default');
    expect(first!.status.code).toBe(SpanStatusCode.ERROR);
    expect(first!.status.message).toBe('failure 1');
    expect(first!.attributes['readpast.outcome']).toBe('failed');
    expect(first!.events.map((e) => e.name)).toContain('exception');
    expect(first!.events[0]!.attributes?.['exception.message']).toBe('failure 1');
    expect(parentOf(first!)).toBe(send!.spanContext().spanId);

    expect(second!.attributes['readpast.attempt']).toBe(2);
    expect(second!.attributes['readpast.outcome']).toBe('succeeded');
    expect(second!.status.code).not.toBe(SpanStatusCode.ERROR);
    expect(second!.parentSpanContext).toBeUndefined();
    expect(second!.spanContext().traceId).not.toBe(send!.spanContext().traceId);
    const links = second!.links.map((l) => ({ span: l.context.spanId, kind: l.attributes?.['readpast.link'] }));
    expect(links).toEqual([
      { span: send!.spanContext().spanId, kind: 'enqueue' },
      { span: first!.spanContext().spanId, kind: 'previous_attempt' },
    ]);
    const s = await until(
      () => rp.status(token),
      (s) => s.status === 'succeeded' && s.history.every((h) => h.traceId != null),
    );
    expect(s.history.map((h) => h.traceId)).toEqual([first!.spanContext().traceId, second!.spanContext().traceId]);
  });

  it('a timed-out attempt: error status and an exception event of its own type', async () => {
    const { token } = await rp.enqueue({ command: 't.slow', timeoutMs: 50, maxAttempts: 1 });
    await run();
    const [attempt] = await attemptsOf(token);
    expect(attempt!.attributes['readpast.outcome']).toBe('timed_out');
    expect(attempt!.status.code).toBe(SpanStatusCode.ERROR);
    expect(attempt!.events.find((e) => e.name === 'exception')?.attributes?.['exception.type']).toBe('readpast.timed_out');
  });

  it("a sql task's attempt has a database span with its system, database, session and a parameter-free summary", async () => {
    const { token } = await rp.enqueue({ kind: 'sql', command: "SELECT 'secret' AS s FROM sqlite_master WHERE name = 'x'" });
    await run();
    const [attempt] = await attemptsOf(token);
    const db = await until(
      () => spans().find((s) => s.kind === SpanKind.CLIENT && parentOf(s) === attempt!.spanContext().spanId),
      (s) => s !== undefined,
    );
    expect(db!.spanContext().traceId).toBe(attempt!.spanContext().traceId);
    expect(db!.name).toBe('SELECT sqlite_master');
    expect(db!.attributes).toMatchObject({
      'db.system.name': 'sqlite',
      'db.namespace': 'db.sqlite',
      'db.query.summary': 'SELECT sqlite_master',
    });
    expect(db!.attributes['readpast.db.session']).toBe((await rp.status(token)).history[0]!.session);
    // no statement text (nor its literal) unless READPAST_OTEL_STATEMENTS=1
    expect(db!.attributes['db.query.text']).toBeUndefined();
    expect(JSON.stringify(db!.attributes)).not.toContain('secret');
  });

  it("a flow's child links to its parents' attempts", async () => {
    const { tokens } = await rp.flow({
      name: 'diamond',
      nodes: [
        { id: 'a', command: 't.ok' },
        { id: 'b', command: 't.ok' },
        { id: 'c', command: 't.ok', dependsOn: ['a', 'b'] },
      ],
    });
    await run();
    const [a] = await attemptsOf(tokens.a!);
    const [b] = await attemptsOf(tokens.b!);
    const [c] = await attemptsOf(tokens.c!);
    const parents = c!.links.filter((l) => l.attributes?.['readpast.link'] === 'parent').map((l) => l.context.spanId);
    expect(parents.sort()).toEqual([a!.spanContext().spanId, b!.spanContext().spanId].sort());
    // the flow was one send, with its nodes
    const [send] = named('send default');
    expect(send!.attributes['readpast.flow.nodes']).toBe(3);
    expect(parentOf(c!)).toBe(send!.spanContext().spanId);
  });

  it('a given traceparent is the parent of the send span (an HTTP header); an invalid one is ignored', async () => {
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const { token } = await rp.enqueue({ command: 't.ok' }, { traceparent, tracestate: 'vendor=x' });
    const [send] = named('send default');
    expect(send!.spanContext().traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(parentOf(send!)).toBe('b7ad6b7169203331');
    expect(send!.spanContext().traceState?.serialize()).toBe('vendor=x');
    expect((await rp.status(token)).traceId).toBe('0af7651916cd43dd8448eb211c80319c');

    // a server span that continued the header (same trace) is the parent; a span of another trace is not
    exporter.reset();
    const tracer = trace.getTracer('test');
    const server = await tracer.startActiveSpan('server', { root: false }, contextOfHeader(traceparent), async (span) => {
      await rp.enqueue({ command: 't.ok' }, { traceparent });
      span.end();
      return span;
    });
    expect(named('send default')[0]!.parentSpanContext?.spanId).toBe(server.spanContext().spanId);
    exporter.reset();
    await tracer.startActiveSpan('unrelated', async (span) => {
      await rp.enqueue({ command: 't.ok' }, { traceparent });
      span.end();
    });
    expect(named('send default')[0]!.parentSpanContext?.spanId).toBe('b7ad6b7169203331');

    exporter.reset();
    const other = await rp.enqueue({ command: 't.ok' }, { traceparent: '00-00000000000000000000000000000000-b7ad6b7169203331-01' });
    const [root] = named('send default');
    expect(root!.parentSpanContext).toBeUndefined();
    expect((await rp.status(other.token)).traceId).toBe(root!.spanContext().traceId);
  });

  it("a schedule's fire is a send span whose context its task stores", async () => {
    await rp.createSchedule({ name: 'every-second', cron: '* * * * * *', command: 't.ok', queue: 'cron' }, 'test');
    const m = new Maintenance(store.maintenance, { retentionMs: 60_000, staleWorkerMs: 60_000, logger: silentLogger });
    const send = await until(
      async () => {
        await m.fire();
        return named('send cron')[0];
      },
      (s) => s !== undefined,
    );
    expect(send!.attributes['readpast.schedule']).toBe('every-second');
    const token = String(send!.attributes['messaging.message.id']);
    expect((await rp.status(token)).traceId).toBe(send!.spanContext().traceId);
  });
});
