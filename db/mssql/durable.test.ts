// Durable handlers on SQL Server without a server: what goes over the wire (the real driver against the stand-in TDS
// endpoint, test-support/fake-tds.ts, which runs no SQL) and what the statements are built to do. That they do it —
// steps replayed, sleeps and waits released and resumed, an event's match — is the contract suite's, against
// MSSQL_URL (db/contract/durable-*.ts in mssql.contract.test.ts).
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningAttempt } from '../../lib/engine/ports';
import { NO_TIMEOUT, type StepWrite } from '../../lib/engine/types';
import { finishRow } from './settle';
import { CALLER_PROCEDURES } from './sql/callers';
import { jsonTypeOf, matchesSql, SEND_EVENT_BODY, SUSPEND_MATCH } from './sql/events';
import { FINISH } from './sql/settle';
import { RECORD_STEP } from './sql/steps';
import type { FakeReplier, FakeRequest } from './test-support/fake-tds';
import { asApp, closeFakeStores, openFakeStore } from './test-support/fake-store';

afterEach(closeFakeStores);

// no schema check on the first statement: each call goes as itself (connection.ts)
const open = (reply: FakeReplier) =>
  openFakeStore(asApp(reply), { checkSchema: false, wakeMs: 0 }, (tds) => {
    tds.recordTransactions = true;
  });

const TOKEN = '6f1c2a4e-8b3d-4c5e-9f7a-0b1c2d3e4f50';

describe('readpast.SendEvent', () => {
  it('rp.sendEvent is one RPC of the installed procedure, with the event as typed parameters; its outputs are the answer', async () => {
    const { tds, store } = await open((req) =>
      req.call?.procedure === 'readpast.SendEvent'
        ? { outputs: { EventId: '7', Resumed: '1', Tokens: JSON.stringify([{ token: TOKEN.toUpperCase() }]) } }
        : undefined,
    );
    const r = await store.commands.sendEvent({ name: 'order.paid', payload: { orderId: 42 }, caller: 'api' });
    expect(r).toEqual({ id: 7, resumed: 1, tokens: [TOKEN] });
    const sent = tds.requests().filter((q) => q.kind !== 'tm');
    expect(sent).toHaveLength(1);
    expect(sent[0]!.kind).toBe('rpc');
    expect(sent[0]!.call).toMatchObject({
      procedure: 'readpast.SendEvent',
      statement: null,
      params: { event: 'order.paid', payload: '{"orderId":42}', caller: 'api' },
    });
  });

  it('is the callers’ procedure, granted; it nests in the caller’s transaction and inserts its event before it reads the waits', () => {
    const p = CALLER_PROCEDURES.find((x) => x.name === 'SendEvent')!;
    expect(p.granted).toBe(true);
    expect(p.body).toBe(SEND_EVENT_BODY);
    // one BEGIN/COMMIT pair (it nests: the caller's COMMIT or ROLLBACK decides), no ROLLBACK, no transaction of its own
    expect(SEND_EVENT_BODY.match(/BEGIN TRANSACTION/g)).toHaveLength(1);
    expect(SEND_EVENT_BODY.match(/COMMIT TRANSACTION/g)).toHaveLength(1);
    expect(SEND_EVENT_BODY).not.toMatch(/ROLLBACK|SAVE TRAN/);
    // the checks come before anything is written
    const begin = SEND_EVENT_BODY.indexOf('BEGIN TRANSACTION');
    for (const n of [50060, 50061, 50062]) expect(SEND_EVENT_BODY.indexOf(`THROW ${n}`)).toBeLessThan(begin);
    // the event's row first, then the waiting steps read with a lock (sql/events.ts: why they cannot cross)
    const insert = SEND_EVENT_BODY.indexOf('INSERT INTO readpast.Events');
    const waits = SEND_EVENT_BODY.indexOf('FROM readpast.TaskSteps AS s WITH (READCOMMITTEDLOCK)');
    expect(insert).toBeGreaterThan(begin);
    expect(waits).toBeGreaterThan(insert);
    // the waits' tasks locked before they move
    expect(SEND_EVENT_BODY).toContain('FROM readpast.Tasks AS t WITH (UPDLOCK, ROWLOCK, READCOMMITTEDLOCK)');
  });

  it('a suspending finish reads events past uncommitted rows, and matches them as SendEvent does', () => {
    expect(FINISH).toContain(SUSPEND_MATCH);
    expect(SUSPEND_MATCH).toContain('FROM readpast.Events AS ev WITH (READPAST, READCOMMITTEDLOCK)');
    // one definition of the match (matchesSql), over an object payload only (a JSON value's type 5), in both
    const objectOnly = (v: string) => `CASE WHEN ${jsonTypeOf(v)} = 5 THEN ${v} END`;
    expect(SEND_EVENT_BODY).toContain(`DECLARE @obj nvarchar(max) = ${objectOnly('@Payload')};`);
    expect(SEND_EVENT_BODY).toContain(matchesSql('@obj', 'x.event_match'));
    expect(SUSPEND_MATCH).toContain(matchesSql(objectOnly('ev.payload'), 'r.step_match'));
  });
});

const step = (over: Partial<StepWrite> = {}): StepWrite => ({
  seq: 3,
  name: 'paid',
  kind: 'event',
  status: 'waiting',
  result: null,
  error: null,
  startedAt: new Date('2026-01-02T03:04:05.678Z'),
  endedAt: null,
  wakeAt: null,
  event: 'order.paid',
  match: { orderId: 42 },
  ...over,
});

describe('a suspended attempt settled', () => {
  it('is a finish row of kind suspended, waiting until its time (none: NO_TIMEOUT), carrying the step it waits on', () => {
    const attempt = { taskId: 5, workerId: 'w1', attempt: 2 };
    const row = finishRow({ ...attempt, settlement: { kind: 'suspended', step: step(), until: null } }, 0);
    expect(row).toMatchObject({ kind: 'suspended', outcome: 'suspended', runAfter: '9999-12-31T00:00:00.000', result: null });
    expect(NO_TIMEOUT.toISOString()).toBe('9999-12-31T00:00:00.000Z');
    expect((row as { step: unknown }).step).toEqual({
      seq: 3,
      name: 'paid',
      kind: 'event',
      status: 'waiting',
      startedAt: '2026-01-02T03:04:05.678',
      endedAt: null,
      result: null,
      errorNumber: null,
      errorMessage: null,
      errorDetail: null,
      wakeAt: null,
      event: 'order.paid',
      match: '{"orderId":42}',
    });
    const until = new Date('2026-01-02T03:14:05.678Z');
    const sleep = step({ kind: 'sleep', status: 'sleeping', event: null, match: null, wakeAt: until });
    const slept = finishRow({ ...attempt, settlement: { kind: 'suspended', step: sleep, until } }, 1);
    expect(slept).toMatchObject({ ord: 1, kind: 'suspended', runAfter: '2026-01-02T03:14:05.678' });
    // FINISH reads each field it is given ($.step.*), and writes the suspension
    for (const f of ['seq', 'name', 'kind', 'status', 'startedAt', 'wakeAt', 'event', 'match']) expect(FINISH).toContain(`'$.step.${f}'`);
    expect(FINISH).toContain("WHEN 'suspended' THEN 'waiting'");
  });
});

describe('a transactional step on the worker’s session', () => {
  const attempt = (session: number): RunningAttempt => ({ taskId: 5, attempt: 1, workerId: 'w1', session, parents: [] });
  const isWorker = /^readpast worker w1$/;
  /** the worker connection's requests from its BEGIN to its COMMIT or ROLLBACK: the transaction and what ran inside it */
  function inTransaction(all: FakeRequest[]): FakeRequest[] {
    const from = all.findIndex((r) => r.kind === 'tm');
    const to = all.findIndex((r, i) => i > from && r.kind === 'tm');
    return all.slice(from, to + 1);
  }

  async function run(ok: number) {
    const { tds, store } = await open((req) =>
      req.call?.statement === RECORD_STEP ? { sets: [{ columns: [['ok', 'int']], rows: [[ok]] }] } : undefined,
    );
    const done = await store.worker.transactionStep(
      attempt(0),
      step({ kind: 'transaction', status: 'succeeded', event: null, match: null, name: 'reserve' }),
      async (tx) => {
        await tx.execute('INSERT INTO dbo.Reservations (order_id, sku) VALUES (@orderId, @sku)', { orderId: 42, sku: "x'; DROP" });
        return { reserved: true };
      },
      10_000,
    );
    return { done, requests: inTransaction(tds.requests(isWorker)), shared: tds.requests(/^readpast$/) };
  }

  it('its statements (parameters bound) and its record go on the worker’s one connection, between BEGIN and COMMIT', async () => {
    const { done, requests, shared } = await run(1);
    expect(done).toBe(true);
    expect(requests.map((r) => (r.kind === 'tm' ? r.text : r.call?.statement))).toEqual([
      'BEGIN',
      'INSERT INTO dbo.Reservations (order_id, sku) VALUES (@orderId, @sku)',
      RECORD_STEP,
      'COMMIT',
    ]);
    // the caller's values travel as parameters, never in the text
    expect(requests[1]!.call!.params).toMatchObject({ orderid: 42, sku: "x'; DROP" });
    // the record is fenced on the attempt and carries the callback's result
    expect(requests[2]!.call!.params).toMatchObject({
      task: 5,
      attempt: 1,
      worker: 'w1',
      seq: 3,
      name: 'reserve',
      result: '{"reserved":true}',
    });
    // nothing of it on the shared pool
    expect(shared.some((r) => r.call?.statement === RECORD_STEP)).toBe(false);
  });

  it('an attempt that lost its task rolls back the statements with the record: nothing commits, and it says so', async () => {
    const { done, requests } = await run(0);
    expect(done).toBe(false);
    expect(requests.map((r) => (r.kind === 'tm' ? r.text : r.call?.statement))).toEqual([
      'BEGIN',
      'INSERT INTO dbo.Reservations (order_id, sku) VALUES (@orderId, @sku)',
      RECORD_STEP,
      'ROLLBACK',
    ]);
  });
});
