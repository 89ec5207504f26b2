// A span per durable step, on a real SQLite file with the SDK's in-memory exporter: each `ctx.step`,
// `ctx.transaction`, `ctx.waitForEvent` of an attempt is a `readpast.step <name>` child of that attempt's span; the
// wait that suspends the task is no failure; after the event, the next attempt replays the recorded steps (short
// spans, replayed) under its own span and runs the rest; a step that throws records the error; what a step's
// function traces is the step span's child, and a span the handler wraps a step in is its parent.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sleep } from '../engine/handlers';
import { inMemoryTracing } from '../engine/test-support/tracing';
import type { Pool } from '../engine/pool';
import { openReadpast } from './open';
import type { Readpast } from './readpast';

const exporter = inMemoryTracing();
const tracer = trace.getTracer('test');

let dir: string;
let rp: Readpast;
let pool: Pool | null;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'readpast-otel-steps-'));
  rp = await openReadpast({ url: `sqlite:${join(dir, 'db.sqlite')}` });
  await rp.withTransaction((tx) => tx.execute('CREATE TABLE posted (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)'));
  rp.registry.register('t.order', async (_p, ctx) => {
    const loaded = await ctx.step('load', () => ({ n: 5 }));
    await ctx.transaction('post', (tx) => tx.execute('INSERT INTO posted (n) VALUES (@n)', { n: loaded.n }));
    const paid = await ctx.waitForEvent('paid', { event: 'order.paid', match: { orderId: 7 } });
    return ctx.step('notify', () => ({ paid }));
  });
  rp.registry.register('t.broken', async (_p, ctx) => {
    await tracer.startActiveSpan('handler work', async (own) => {
      await ctx.step('fetch', () => tracer.startActiveSpan('GET /stock', (inner) => inner.end()));
      own.end();
    });
    await ctx.step('check', () => {
      throw new Error('stock is negative');
    });
  });
  exporter.reset();
  pool = rp.createPool({ concurrency: 2, pollMs: 20, heartbeatMs: 50 });
  await pool.start();
});

afterEach(async () => {
  await pool?.stop(0);
  await rp.close();
  rmSync(dir, { recursive: true, force: true });
});

async function until<T>(fn: () => T | Promise<T>, ok: (v: T) => boolean, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`condition not met in ${ms} ms`);
    await sleep(20);
  }
}

const spans = () => exporter.getFinishedSpans();
const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId;
const idOf = (s: ReadableSpan) => s.spanContext().spanId;
/** the task's attempt span of that number, once it has ended */
const attemptSpan = (token: string, n: number) =>
  until(
    () =>
      spans().find(
        (s) => s.kind === SpanKind.CONSUMER && s.attributes['messaging.message.id'] === token && s.attributes['readpast.attempt'] === n,
      ),
    (s) => s !== undefined,
  ) as Promise<ReadableSpan>;
/** the step spans under a span, in the order they started */
const stepsUnder = (parent: ReadableSpan) =>
  spans()
    .filter((s) => s.name.startsWith('readpast.step ') && parentOf(s) === idOf(parent))
    .sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]);
const summary = (s: ReadableSpan) => [
  s.name,
  s.attributes['readpast.step.kind'],
  s.attributes['readpast.step.replayed'],
  s.attributes['readpast.step.outcome'],
];

describe('a span per durable step', () => {
  it('each step is a child of its attempt; the suspending wait is no failure; the resumed attempt replays under its own span', async () => {
    const { token } = await rp.enqueue({ command: 't.order' });
    const first = await attemptSpan(token, 1);
    expect(first.attributes['readpast.outcome']).toBe('suspended');
    const firstSteps = stepsUnder(first);
    expect(firstSteps.map(summary)).toEqual([
      ['readpast.step load', 'step', false, 'succeeded'],
      ['readpast.step post', 'transaction', false, 'succeeded'],
      ['readpast.step paid', 'event', false, 'suspended'],
    ]);
    for (const s of firstSteps) {
      expect(s.kind).toBe(SpanKind.INTERNAL);
      expect(s.spanContext().traceId).toBe(first.spanContext().traceId);
      expect(s.attributes['readpast.attempt']).toBe(1);
      expect(s.status.code).not.toBe(SpanStatusCode.ERROR);
    }
    expect(firstSteps.map((s) => s.attributes['readpast.step.seq'])).toEqual([1, 2, 3]);
    expect(firstSteps[0]!.attributes['readpast.step.name']).toBe('load');
    expect(firstSteps[2]!.attributes['readpast.step.event']).toBe('order.paid');

    await rp.sendEvent('order.paid', { orderId: 7, amount: 12 });
    const second = await attemptSpan(token, 2);
    expect(second.attributes['readpast.outcome']).toBe('succeeded');
    const secondSteps = stepsUnder(second);
    expect(secondSteps.map(summary)).toEqual([
      ['readpast.step load', 'step', true, 'succeeded'],
      ['readpast.step post', 'transaction', true, 'succeeded'],
      ['readpast.step paid', 'event', true, 'succeeded'],
      ['readpast.step notify', 'step', false, 'succeeded'],
    ]);
    expect(secondSteps.every((s) => s.attributes['readpast.attempt'] === 2)).toBe(true);
    // replayed: nothing ran again
    const { rows } = await rp.withTransaction((tx) => tx.execute<{ n: number }>('SELECT n FROM posted'));
    expect(rows).toEqual([{ n: 5 }]);
    const done = await until(
      () => rp.status(token),
      (s) => s.status === 'succeeded',
    );
    expect(done.result).toEqual({ paid: { orderId: 7, amount: 12 } });
  });

  it("a step that throws records its error; a step's own spans are its children, a handler's span around a step its parent", async () => {
    const { token } = await rp.enqueue({ command: 't.broken', maxAttempts: 1 });
    const attempt = await attemptSpan(token, 1);
    expect(attempt.status.code).toBe(SpanStatusCode.ERROR);

    const [check] = stepsUnder(attempt);
    expect(summary(check!)).toEqual(['readpast.step check', 'step', false, 'failed']);
    expect(check!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'stock is negative' });
    const exception = check!.events.find((e) => e.name === 'exception');
    expect(exception?.attributes?.['exception.message']).toBe('stock is negative');

    const [own] = spans().filter((s) => s.name === 'handler work');
    expect(parentOf(own!)).toBe(idOf(attempt));
    const [fetch] = stepsUnder(own!);
    expect(summary(fetch!)).toEqual(['readpast.step fetch', 'step', false, 'succeeded']);
    const [get] = spans().filter((s) => s.name === 'GET /stock');
    expect(parentOf(get!)).toBe(idOf(fetch!));
  });
});
