// OpenTelemetry on SQL Server (migration 22; lib/engine/tracing.ts): what the migration adds; the trace
// context through the enqueue's JSON, the claim's columns, the parents' read and the finish; ExecAsync's
// @TraceParent; and a traced sql task's database span on the stand-in TDS endpoint — its database, server, session
// (SPID), and the longest wait and the blocking session the DMV samples saw while it ran.
import { SpanKind } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { HandlerRegistry } from '../../lib/engine/handlers';
import { runTask } from '../../lib/engine/run';
import { inMemoryTracing } from '../../lib/engine/test-support/tracing';
import type { ClaimedTask } from '../../lib/engine/types';
import { enqueueRow } from './enqueue';
import { MIGRATIONS } from './schema';
import { finishRow } from './settle';
import { CODE_OBJECTS } from './code-objects';
import { CALLER_PROCEDURES } from './sql/callers';
import { CLAIM } from './sql/claim';
import { ENQUEUE_WRITE } from './sql/enqueue';
import { CLAIM_PARENTS } from './sql/flows';
import { HOT, hotBareName } from './sql/hot';
import { FINISH } from './sql/settle';
import { SESSION_WAIT } from './sql/live';
import { cleanupReply } from './test-support/replies';
import type { FakeReplier } from './test-support/fake-tds';
import { asApp, closeFakeStores, openFakeStore } from './test-support/fake-store';
import { namespaceOf, SAMPLE_FIRST_MS, SAMPLE_MS, WaitSamples } from './trace-waits';
import { migration as v22 } from './versions/v22-trace-context';

const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

describe('migration 22', () => {
  it('holds DDL only: the columns; the enqueue, claim and finish that use them are code objects', () => {
    expect(MIGRATIONS.find((m) => m.version === 22)).toBe(v22);
    const all = v22.batches.join('\n');
    for (const col of [
      'readpast.Tasks ADD trace_parent varchar(55) NULL',
      'readpast.Tasks ADD trace_state varchar(512) NULL',
      'readpast.Tasks ADD attempt_trace varchar(55) NULL',
      'readpast.ExecutionLog ADD trace_parent varchar(55) NULL',
    ])
      expect(all).toContain(col);
    expect(all).not.toMatch(/CREATE OR ALTER (PROCEDURE|VIEW)|GRANT /);
    const installed = CODE_OBJECTS.map((o) => o.name);
    for (const p of [HOT.enqueue, HOT.claim, HOT.finish]) expect(installed).toContain(hotBareName(p));
    expect(installed).toContain('ExecAsync');
  });

  it('the statements carry the context: enqueue stores it, the claim and the parents’ read return it, finish keeps the span', () => {
    expect(ENQUEUE_WRITE).toContain("trace_parent varchar(55) '$.traceParent', trace_state varchar(512) '$.traceState'");
    expect(ENQUEUE_WRITE).toMatch(/blocked_by, error_message, finished_at, trace_parent, trace_state\)/);
    expect(CLAIM).toContain('x.parent_count, x.trace_parent, x.trace_state, x.attempt_trace');
    expect(CLAIM_PARENTS).toContain('p.attempt_trace');
    expect(FINISH).toContain('attempt_trace = COALESCE(r.trace, t.attempt_trace)');
    expect(FINISH).toContain('trace_parent = r.trace');
  });

  it('ExecAsync takes @TraceParent last (positional calls of before still bind) and refuses one that is not a traceparent', () => {
    const exec = CALLER_PROCEDURES.find((p) => p.name === 'ExecAsync')!;
    expect(exec.params.at(-1)).toBe('@TraceParent varchar(100) = NULL');
    expect(exec.body).toContain('@TraceParent AS traceParent');
    expect(exec.body).toContain('THROW 50024');
    expect(exec.body).toContain("OR LEFT(@TraceParent, 2) = 'ff'");
  });
});

describe('the rows the statements read', () => {
  it('an enqueue row names the context only when it has one (no bytes otherwise)', () => {
    expect(JSON.stringify(enqueueRow({ kind: 'handler', command: 'x' }, 0))).not.toContain('trace');
    expect(enqueueRow({ kind: 'handler', command: 'x', trace: { traceparent: TRACEPARENT, tracestate: 'a=b' } }, 0)).toMatchObject({
      traceParent: TRACEPARENT,
      traceState: 'a=b',
    });
  });

  it('a finish row carries the attempt’s span when it was traced', () => {
    const base = { taskId: 1, workerId: 'w', attempt: 1, settlement: { kind: 'succeeded', result: null } } as const;
    expect(finishRow(base, 0)).not.toHaveProperty('trace');
    expect(finishRow({ ...base, trace: TRACEPARENT }, 0)).toMatchObject({ trace: TRACEPARENT });
  });

  it('the samples keep the longest wait and every blocker; db.namespace names the instance when there is one', () => {
    const s = new WaitSamples();
    s.add([{ wait_type: 'PAGEIOLATCH_SH', wait_time: 40, blocking_session_id: 0 }]);
    s.add([{ wait_type: 'LCK_M_U', wait_time: 900, blocking_session_id: 57 }]);
    s.add([
      { wait_type: 'LCK_M_U', wait_time: 20, blocking_session_id: 61 },
      { wait_type: null, wait_time: 0, blocking_session_id: null },
    ]);
    expect({ type: s.waitType, ms: s.waitMs, by: [...s.blockedBy] }).toEqual({ type: 'LCK_M_U', ms: 900, by: [57, 61] });
    expect(namespaceOf({ instanceName: null, database: 'app' })).toBe('app');
    expect(namespaceOf({ instanceName: 'SQL1', database: 'app' })).toBe('SQL1|app');
  });
});

describe('a traced sql task on the stand-in endpoint', () => {
  const exporter = inMemoryTracing();
  afterEach(closeFakeStores);

  it('its database span has the database, the server, the SPID, the longest wait and the blocking session', async () => {
    let samples = 0;
    const reply: FakeReplier = (req) => {
      if (req.text.includes('SELECT @@TRANCOUNT AS trancount')) return cleanupReply();
      if (req.text.includes(SESSION_WAIT.slice(0, 40))) {
        samples++;
        return {
          sets: [
            {
              columns: [
                ['wait_type', 'nvarchar'],
                ['wait_time', 'int'],
                ['blocking_session_id', 'int'],
              ],
              rows: [['LCK_M_X', 250 * samples, 77]],
            },
          ],
        };
      }
      // the task's batch: long enough for the first sample and one more
      if (req.kind === 'batch' && req.text.includes('UPDATE dbo.Stock')) return { delayMs: SAMPLE_FIRST_MS + SAMPLE_MS + 400 };
      return undefined;
    };
    const { tds, store } = await openFakeStore(asApp(reply), { wakeMs: 0 });
    const workerId = 'w-trace';
    await store.worker.registerWorker({ workerId, host: 'h', pid: 1, role: 'test' });
    const spid = tds.logins(/^readpast worker /).at(-1)!.spid;
    const now = new Date();
    const task: ClaimedTask = {
      id: 7,
      token: '00000000-0000-4000-8000-000000000007',
      queue: 'stock',
      kind: 'sql',
      command: "UPDATE dbo.Stock SET n = n - 1 WHERE sku = 'A-1'",
      payload: null,
      priority: 0,
      concurrencyKey: null,
      attempt: 1,
      maxAttempts: 3,
      timeoutMs: null,
      backoffMs: 1000,
      workerId,
      session: spid,
      createdAt: now,
      runAfter: now,
      startedAt: now,
      parents: [],
      traceParent: TRACEPARENT,
    };
    const end = await runTask(store.worker, new HandlerRegistry(), task, new AbortController());
    expect(end.settlement.kind).toBe('succeeded');
    expect(samples).toBeGreaterThanOrEqual(2);
    const spans = exporter.getFinishedSpans();
    const attempt = spans.find((s) => s.kind === SpanKind.CONSUMER)!;
    expect(attempt.spanContext().traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    expect(end.trace).toContain(attempt.spanContext().spanId);
    const db = spans.find((s) => s.kind === SpanKind.CLIENT)!;
    expect(db.parentSpanContext?.spanId).toBe(attempt.spanContext().spanId);
    expect(db.name).toBe('UPDATE dbo.Stock');
    expect(db.attributes).toMatchObject({
      'db.system.name': 'mssql',
      'db.query.summary': 'UPDATE dbo.Stock',
      'server.address': '127.0.0.1',
      'readpast.db.session': spid,
      'readpast.db.wait_type': 'LCK_M_X',
      'readpast.db.blocking_sessions': [77],
    });
    // the longest: a later sample's (a sample still on its way when the work ended may not count)
    expect(db.attributes['readpast.db.wait_ms']).toBeGreaterThanOrEqual(500);
    expect(db.attributes['db.namespace']).toBeTruthy();
    expect(JSON.stringify(db.attributes)).not.toContain('A-1');
  });
});
