// What can be checked without a server about running T-SQL on a worker's session: splitting a
// script on GO, turning driver errors into recorded errors, tags, the KILL statement's guard,
// and the JSON the writing batches read.
import { describe, expect, it } from 'vitest';
import { ConflictError, TaskError, ValidationError } from '../../lib/engine/errors';
import { errorInfo } from '../../lib/engine/retry';
import { enqueueError, enqueueResults, enqueueRow } from './enqueue';
import { batchError, connectionLost, isConnectionError, requestError, retrying, SqlServerError } from './errors';
import { splitBatches } from './script';
import { attemptTag, idleTag, taskTag } from './session';
import { finishRow } from './settle';
import { killSql } from './sql/live';

describe('splitting a script on GO', () => {
  it('splits on GO lines, repeats GO n, drops empty batches', () => {
    expect(splitBatches('SELECT 1\nGO\nSELECT 2\r\ngo -- done\n\nGO\n')).toEqual(['SELECT 1\n', 'SELECT 2\r\n']);
    expect(splitBatches('INSERT t VALUES (1)\nGO 3')).toEqual(Array(3).fill('INSERT t VALUES (1)\n'));
    expect(splitBatches('SELECT 1')).toEqual(['SELECT 1']);
  });

  it('does not split inside strings, comments or quoted names', () => {
    const script = "SELECT 'a\nGO\nb'\nGO\n/* x\nGO\n /* nested\nGO\n*/ still comment\nGO\n*/ SELECT [x\nGO\n] -- GO\nGO\nSELECT 3";
    const parts = splitBatches(script);
    expect(parts).toHaveLength(3);
    expect(parts[0]).toBe("SELECT 'a\nGO\nb'\n");
    expect(parts[1]).toContain('still comment');
    expect(parts[1]).toContain('SELECT [x\nGO\n]');
    expect(parts[2]).toBe('SELECT 3');
  });

  it('keeps words that merely start with GO, and refuses absurd repeat counts', () => {
    expect(splitBatches('GOTO label\nlabel: SELECT 1')).toHaveLength(1);
    expect(() => splitBatches('SELECT 1\nGO 100000')).toThrow(/count/);
  });
});

describe('errors as recorded', () => {
  const sqlError = (number: number, message: string, extra: Record<string, unknown> = {}) =>
    Object.assign(new Error(message), { name: 'RequestError', code: 'EREQUEST', number, class: 16, state: 1, lineNumber: 3, ...extra });

  it('keeps number, severity, state, line and every message in the detail', () => {
    const e = batchError(
      [sqlError(2627, "Violation of PRIMARY KEY constraint 'PK_x'."), sqlError(3621, 'The statement has been terminated.', { class: 0 })],
      [{ message: 'printed first', number: 0, severity: 0, state: 1, lineNumber: 1, procName: null }],
    );
    expect(e).toBeInstanceOf(SqlServerError);
    expect(e).toBeInstanceOf(TaskError);
    expect(e).toMatchObject({ number: 2627, severity: 16, state: 1, lineNumber: 3, retryable: true });
    const info = errorInfo(e);
    expect(info.number).toBe(2627);
    expect(info.message).toBe("Violation of PRIMARY KEY constraint 'PK_x'.");
    expect(info.detail).toContain("Msg 2627, Level 16, State 1, Line 3\nViolation of PRIMARY KEY constraint 'PK_x'.");
    expect(info.detail).toContain('Msg 3621, Level 0, State 1, Line 3');
    expect(info.detail).toContain('Messages:\nprinted first');
  });

  it('makes errors no retry can fix non-retryable, and reads a non-stream error with its predecessors', () => {
    expect(batchError([sqlError(102, "Incorrect syntax near 'FRM'.")]).retryable).toBe(false);
    expect(batchError([sqlError(208, "Invalid object name 'x'.")]).retryable).toBe(true);
    const last = Object.assign(sqlError(266, 'Transaction count after EXECUTE…'), {
      precedingErrors: [sqlError(50000, 'raised by the procedure', { procName: 'dbo.p' })],
    });
    const e = requestError(last);
    expect(e).toMatchObject({ number: 50000, procName: 'dbo.p' });
    expect(errorInfo(e).detail).toContain('Procedure dbo.p');
  });

  it('recognises a lost connection and fails the attempt with it', () => {
    const closed = Object.assign(new Error('Connection lost - read ECONNRESET'), { code: 'ESOCKET' });
    const wrapped = Object.assign(new Error('Connection closed before request completed.'), {
      code: 'EREQUEST',
      originalError: { code: 'ECLOSE' },
    });
    expect(isConnectionError(closed)).toBe(true);
    expect(isConnectionError(wrapped)).toBe(true);
    expect(isConnectionError(sqlError(208, 'x'))).toBe(false);
    const e = connectionLost(closed);
    expect(e).toBeInstanceOf(TaskError);
    expect(e.message).toMatch(/connection to SQL Server lost/);
    expect(e.retryable).toBe(true);
  });

  it('runs a write again after a deadlock, not after other errors', async () => {
    let calls = 0;
    const ok = await retrying(async () => {
      calls++;
      if (calls < 3) throw sqlError(1205, 'Transaction was deadlocked');
      return 'done';
    });
    expect(ok).toBe('done');
    expect(calls).toBe(3);
    // enqueue's dedup key lock not granted (51004): rolled back whole, run again
    let locked = 0;
    expect(
      await retrying(async () => {
        if (++locked < 2) throw sqlError(51004, 'could not lock the dedup key for enqueue');
        return 'enqueued';
      }),
    ).toBe('enqueued');
    let other = 0;
    await expect(
      retrying(async () => {
        other++;
        throw sqlError(547, 'FK');
      }),
    ).rejects.toThrow('FK');
    expect(other).toBe(1);
  });
});

describe('session tags and KILL', () => {
  it('tags an attempt so that its prefix identifies exactly that attempt', () => {
    const tag = taskTag(12, 3, 'host-1:w7');
    expect(tag.toString('latin1')).toBe('rp;t=12;a=3;w=host-1:w7');
    expect(tag.subarray(0, attemptTag(12, 3).length).equals(attemptTag(12, 3))).toBe(true);
    // task 1 attempt 2 is not a prefix match for task 12 attempt 3, nor the other way round
    expect(tag.subarray(0, attemptTag(1, 2).length).equals(attemptTag(1, 2))).toBe(false);
    expect(taskTag(1, 1, 'w'.repeat(500)).length).toBe(128);
    expect(idleTag('wörker').toString('latin1')).toBe('rp;w=w?rker');
  });

  it('writes only a checked integer session id into KILL', () => {
    expect(killSql(53)).toContain('KILL 53;');
    expect(killSql(53)).toContain('s.session_id = 53 AND s.login_time = @login_time');
    for (const bad of [0, -1, 32768, 1.5, Number.NaN, Number('53; DROP TABLE x') as number]) {
      expect(() => killSql(bad)).toThrow(RangeError);
    }
  });
});

describe('the JSON writing batches read', () => {
  it('turns an enqueue input into one row, with the queue defaults left to the server', () => {
    const at = new Date('2030-01-02T03:04:05.678Z');
    const row = enqueueRow(
      { kind: 'handler', command: 'demo.echo', payload: { a: 1 }, runAt: at, timeoutMs: null, caller: 'x'.repeat(300) },
      4,
    );
    expect(row).toMatchObject({
      ord: 4,
      queue: 'default',
      payload: '{"a":1}',
      runAfter: '2030-01-02T03:04:05.678',
      maxAttempts: null,
      timeoutGiven: 1,
      timeoutMs: null,
      batchId: null,
      stage: null,
    });
    expect(row.caller).toHaveLength(200);
    expect(row.token).toMatch(/^[0-9a-f-]{36}$/);
    expect(enqueueRow({ kind: 'sql', command: 'SELECT 1' }, 0)).toMatchObject({ timeoutGiven: 0, payload: null, runAfter: null });
    expect(enqueueRow({ kind: 'handler', command: 'x', batchId: 9 }, 0)).toMatchObject({ batchId: 9, stage: 0 });
    expect(() => enqueueRow({ kind: 'handler', command: 'x', stage: 2 }, 0, 'tasks.1')).toThrow(ValidationError);
  });

  it('reads results back in input order and maps batch errors', () => {
    const out = enqueueResults(
      [
        { ord: 1, token: 'AAAAAAAA-0000-4000-8000-000000000001', created: 0 },
        { ord: 0, token: 'BBBBBBBB-0000-4000-8000-000000000002', created: 1 },
      ],
      2,
    );
    expect(out).toEqual([
      { token: 'bbbbbbbb-0000-4000-8000-000000000002', created: true },
      { token: 'aaaaaaaa-0000-4000-8000-000000000001', created: false },
    ]);
    expect(enqueueError(Object.assign(new Error('no batch 4'), { number: 51001 }))).toMatchObject({
      field: 'batchId',
      message: 'batchId: no batch 4',
    });
    expect(enqueueError(Object.assign(new Error('batch 4 is released'), { number: 51002 }))).toBeInstanceOf(ConflictError);
    expect(enqueueError(Object.assign(new Error('stage 2 of batch 4 has already started'), { number: 51003 }))).toBeInstanceOf(
      ConflictError,
    );
    const other = Object.assign(new Error('deadlock'), { number: 1205 });
    expect(enqueueError(other)).toBe(other);
  });

  it('turns settlements into rows, capping long messages', () => {
    const base = { taskId: 5, workerId: 'w', attempt: 2 };
    expect(finishRow({ ...base, settlement: { kind: 'succeeded', result: { ok: true } } }, 0)).toMatchObject({
      kind: 'succeeded',
      outcome: 'succeeded',
      result: '{"ok":true}',
    });
    const retry = finishRow(
      {
        ...base,
        settlement: {
          kind: 'retry',
          outcome: 'timed_out',
          error: { number: 1, message: 'm'.repeat(5000), detail: null },
          runAfter: new Date(0),
        },
      },
      1,
    );
    expect(retry).toMatchObject({ kind: 'retry', outcome: 'timed_out', runAfter: '1970-01-01T00:00:00.000', errorNumber: 1 });
    expect(retry.errorMessage).toHaveLength(4000);
    expect(finishRow({ ...base, settlement: { kind: 'cancelled', error: null } }, 2)).toMatchObject({
      kind: 'cancelled',
      errorMessage: null,
    });
    // an attempt given back (its claim returned too late): FINISH undoes it
    expect(finishRow({ ...base, settlement: { kind: 'given_back', reason: 'late' } }, 3)).toMatchObject({
      ord: 3,
      kind: 'given_back',
      errorMessage: null,
    });
    // a store that never claims ahead has no claimed task to start
    const start = { at: new Date(), claimer: 'w', session: 51, due: new Date() };
    expect(() => finishRow({ ...base, settlement: { kind: 'started' }, start }, 4)).toThrow(/never claims ahead/);
  });
});
