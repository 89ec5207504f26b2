// Throttle on SQL Server as TypeScript generates it (issue 24; the behaviour itself is the contract suite's,
// run with MSSQL_URL): migration 19's tables and indexes, the claim's lock order over ConcurrencyKeys and
// RateSlots, every writer that makes a task pending making sure of its key's row before it locks Tasks, and
// the row shapes that carry a task's key.
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../lib/engine/errors';
import { enqueueError, enqueueRow } from './enqueue';
import { RETRIED_STATUS } from './sql/edges';
import { claimedTask, type ClaimRow } from './rows';
import { MIGRATIONS } from './schema';
import { EDIT_TASK, BULK_RETRY } from './sql/bulk';
import { CALLER_PROCEDURES } from './sql/callers';
import { CLAIM } from './sql/claim';
import { ENQUEUE_WRITE } from './sql/enqueue';
import { PRUNE_REST } from './sql/maintenance';
import { RETRY_ONE_WRITE } from './sql/operators';
import { SET_QUEUE } from './sql/queues';
import { FIRE, RUN_SCHEDULE } from './sql/schedules';

const v19 = MIGRATIONS.find((m) => m.version === 19)!;

/** Where `needle` first occurs in `text` (fails when it does not). */
function at(text: string, needle: string): number {
  const i = text.indexOf(needle);
  expect(i, needle).toBeGreaterThanOrEqual(0);
  return i;
}

describe('migration 19: throttle', () => {
  it('adds the key column, the queue settings, ConcurrencyKeys and RateSlots (clustered keys, binary keys)', () => {
    const text = v19.batches.join('\n');
    expect(text).toContain('ADD concurrency_key nvarchar(200) COLLATE Latin1_General_100_BIN2 NULL');
    for (const c of ['per_key_limit', 'key_from', 'rate_limit', 'rate_period_s', 'rate_per_key'])
      expect(text).toContain(`COL_LENGTH(N'readpast.Queues', N'${c}')`);
    expect(text).toContain('CONSTRAINT PK_ConcurrencyKeys PRIMARY KEY CLUSTERED (queue, concurrency_key)');
    expect(text).toContain('CONSTRAINT PK_RateSlots PRIMARY KEY CLUSTERED (queue, rate_key, slot_no)');
    expect(text).toMatch(/rate_key nvarchar\(200\) COLLATE Latin1_General_100_BIN2 NOT NULL/);
  });

  it("indexes match the claim's literals: key lanes, unkeyed lane, running per key; the old ready index goes", () => {
    const text = v19.batches.join('\n');
    expect(text).toContain(
      'IX_Tasks_key_ready ON readpast.Tasks (queue, concurrency_key, priority DESC, id) INCLUDE (run_after) ' +
        "WHERE status = 'pending' AND batch_id IS NULL AND concurrency_key IS NOT NULL",
    );
    expect(text).toMatch(/IX_Tasks_ready_unkeyed .* WHERE status = 'pending' AND batch_id IS NULL AND concurrency_key IS NULL/);
    expect(text).toMatch(/IX_Tasks_running_key ON readpast\.Tasks \(queue, concurrency_key, lease_until\) WHERE status = 'running'/);
    expect(text).toContain('DROP INDEX IX_Tasks_ready ON readpast.Tasks;');
    // the claim's seeks name the filter columns literally, so the filtered indexes match
    expect(CLAIM).toContain("t.status = 'pending' AND t.batch_id IS NULL AND t.concurrency_key IS NULL AND t.queue = k.queue");
    expect(CLAIM).toContain("t.status = 'pending' AND t.batch_id IS NULL AND t.concurrency_key IS NOT NULL AND t.queue = y.queue");
  });

  it('holds no procedure: ExecAsync takes @ConcurrencyKey after the parameters of before (installed by content)', () => {
    expect(v19.batches.join('\n')).not.toMatch(/CREATE OR ALTER PROCEDURE|GRANT /);
    const exec = CALLER_PROCEDURES.find((p) => p.name === 'ExecAsync')!;
    // after the parameters positional calls of before bind to (and before migration 20's @DependsOn, @OnParentFailure
    // and 22's @TraceParent)
    expect(exec.params.at(-4)).toBe('@ConcurrencyKey nvarchar(4000) = NULL');
    expect(exec.body).toContain('@ConcurrencyKey AS concurrencyKey');
  });
});

describe('the claim keeps the lock order over keys and rate slots', () => {
  it('queue → batch → key row → Tasks (count, pick) → tokens → rate slot → ExecutionLog', () => {
    const queue = at(CLAIM, 'UPDATE readpast.Queues SET lock_version');
    const batch = at(CLAIM, 'UPDATE readpast.Batches SET served_at');
    const key = at(CLAIM, 'UPDATE readpast.ConcurrencyKeys');
    const keyCount = at(CLAIM, 't.concurrency_key = @key AND t.lease_until >= SYSUTCDATETIME()');
    const pick = at(CLAIM, 'UPDATE pick');
    const token = at(CLAIM, 'INSERT INTO readpast.ConcurrencyTokens');
    const slot = at(CLAIM, 'FROM readpast.RateSlots AS s WITH (UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK)');
    const log = at(CLAIM, 'INSERT INTO readpast.ExecutionLog');
    expect([queue, batch, key, keyCount, pick, token, slot, log]).toEqual(
      [queue, batch, key, keyCount, pick, token, slot, log].sort((a, b) => a - b),
    );
  });

  it('the window is counted in RateSlots, a slot per start: never one row every claim updates', () => {
    expect(CLAIM).toContain('UPDATE s SET used_at = @now, task_id = c.id');
    expect(CLAIM).toMatch(/WHERE s\.queue = @queue AND s\.rate_key = @rate_key AND s\.slot_no = @rate_slot/);
    // the key's row is the one written per claim of a keyed task, and only its own
    expect(CLAIM).toMatch(/UPDATE readpast\.ConcurrencyKeys[\s\S]{0,200}WHERE queue = @queue AND concurrency_key = @key/);
    // the tables a claim writes by UPDATE: no new shared row (no window counter on Queues; Metrics is sharded by slot)
    const written = new Set([...CLAIM.matchAll(/UPDATE (readpast\.\w+)/g)].map((m) => m[1]));
    expect([...written].sort()).toEqual([
      'readpast.Batches',
      'readpast.ConcurrencyKeys',
      'readpast.Metrics',
      'readpast.Queues',
      'readpast.Tasks',
    ]);
  });
});

describe('writers that make a task pending make sure of its key row first', () => {
  const writers: [string, string, string][] = [
    ['enqueue', ENQUEUE_WRITE, 'INSERT INTO readpast.Tasks'],
    ['retry one', RETRY_ONE_WRITE, `SET status = ${RETRIED_STATUS}`],
    ['bulk retry', BULK_RETRY, `SET status = ${RETRIED_STATUS}`],
    ['edit', EDIT_TASK, 'SET queue = @queue'],
    ['schedule fire', FIRE, 'INSERT INTO readpast.Tasks'],
    ['schedule run', RUN_SCHEDULE, 'INSERT INTO readpast.Tasks'],
  ];
  for (const [name, text, tasks] of writers)
    it(`${name}: ConcurrencyKeys (UPDLOCK, HOLDLOCK) before Tasks`, () => {
      expect(at(text, 'INSERT INTO readpast.ConcurrencyKeys')).toBeLessThan(at(text, tasks));
      expect(text).toContain('FROM readpast.ConcurrencyKeys AS c WITH (UPDLOCK, HOLDLOCK)');
    });

  it('setQueue records each new field, and pruning drops idle key rows and slots in chunks', () => {
    for (const f of ['perKeyLimit', 'keyFrom', 'rateLimit']) expect(SET_QUEUE).toContain(`'${f}'`);
    expect(PRUNE_REST).toMatch(/SELECT TOP \(1000\) c\.queue, c\.concurrency_key FROM readpast\.ConcurrencyKeys/);
    expect(PRUNE_REST).toMatch(/SELECT TOP \(1000\) s\.queue, s\.rate_key, s\.slot_no FROM readpast\.RateSlots/);
  });
});

describe('keys derived by keyFrom walk the path with OPENJSON (SQL Server 2016 takes no JSON_VALUE path but a literal)', () => {
  it('no statement gives JSON_VALUE a path that is not a literal; enqueue and schedule fires walk it', () => {
    for (const [name, text] of Object.entries({ ENQUEUE_WRITE, FIRE, RUN_SCHEDULE, CLAIM }))
      expect(text, name).not.toMatch(/JSON_VALUE\([^,]+,\s*[^'\s]/);
    for (const text of [ENQUEUE_WRITE, FIRE, RUN_SCHEDULE]) expect(text).toContain('CROSS APPLY OPENJSON(CASE WHEN w.vtype IN (4, 5)');
  });
});

describe('rows carry the key', () => {
  it('enqueue sends concurrencyKey; a key over 200 characters (51005) is refused naming the payload', () => {
    expect(enqueueRow({ kind: 'handler', command: 'a', concurrencyKey: 'acme' }, 0).concurrencyKey).toBe('acme');
    expect(enqueueRow({ kind: 'handler', command: 'a' }, 0).concurrencyKey).toBeNull();
    const e = enqueueError({ number: 51005, message: 'the concurrency key at $.id is longer than 200 characters' });
    expect(e).toBeInstanceOf(ValidationError);
    expect((e as ValidationError).field).toBe('payload');
    expect((e as ValidationError).message).toMatch(/longer than 200/);
  });

  it('a claimed task has its key', () => {
    const row = {
      id: '7',
      token: 'ABC',
      queue: 'q',
      kind: 'handler',
      command: 'a',
      payload: null,
      priority: 0,
      attempts: 1,
      max_attempts: 3,
      timeout_ms: null,
      created_at: new Date(0),
      run_after: new Date(0),
      started_at: new Date(0),
      token_no: null,
      batch_id: null,
      stage: null,
      concurrency_key: 'Acme',
      backoff_ms: 1000,
      session: 51,
      served_stamp: '1',
    } satisfies ClaimRow;
    expect(claimedTask(row, 'w').concurrencyKey).toBe('Acme');
    expect(claimedTask({ ...row, concurrency_key: null }, 'w').concurrencyKey).toBeNull();
  });
});
