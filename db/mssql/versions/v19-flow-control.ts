// SQL Server migration 19: flow control — concurrency keys, fair turns across keys, rate limits (issue 24).
//  - Tasks.concurrency_key (nvarchar(200), binary like queue names): given at enqueue or derived from the payload
//    by the queue's key_from (walked with OPENJSON in Enqueue_v19, sql/keys.ts walkKeys, so readpast.ExecAsync
//    @ConcurrencyKey and keyFrom work from T-SQL too, on SQL Server 2016 as well). Two filtered indexes: the key
//    lanes' dequeue order (a seek per (queue, key)) and the running tasks of a key with their lease (the per-key
//    limit's count). The unkeyed ready index is replaced by
//    one that leaves keyed tasks out (IX_Tasks_ready_unkeyed), so the unkeyed lane's head is a seek that never
//    walks past keyed rows.
//  - Queues: per_key_limit, key_from, rate_limit, rate_period_s, rate_per_key (changes recorded in QueueChanges,
//    whose values widen to 200 characters for a keyFrom path).
//  - ConcurrencyKeys: one row per key with unfinished tasks, served_at = when a claim last started a task of the
//    key (µs since 1970, as Batches.served_at): the claim serves the least recently served key first, and locks
//    the key's row (never a row every claim touches) before counting the key's running tasks.
//  - RateSlots: at most `rate_limit` slots per (queue, rate_key); an attempt start takes a slot whose used_at is
//    out of the window (UPDLOCK, READPAST, ROWLOCK) and stamps it, so at most rate_limit starts fall in any
//    window, counted in the database, across processes, with no single hot row.
// Then the claim and the enqueue under new names (readpast.Claim_v19, Enqueue_v19: sql/hot.ts) and the T-SQL
// callers again (ExecAsync takes @ConcurrencyKey and calls Enqueue_v19), with the view and the role's grants.
// Claim_v17 and Enqueue_v17 stay for processes not yet upgraded: they neither derive nor honour keys or rates, and
// Claim_v17's unbatched seek had IX_Tasks_ready (dropped here): upgrade the workers with the schema. The index
// builds hold Tasks for their time (offline), as migration 3's did: migrate when no worker runs, or expect a pause.
import { dropIndex, index, table } from '../ddl';
import type { Migration } from './migration';
import { ASYNC_EXEC_RESULTS_VIEW, CALLER_PROCEDURES, createProcedure, roleBatches } from '../sql/callers';
import { createHotProcedure, HOT_PROCEDURES } from '../sql/hot';

const BIN2 = 'Latin1_General_100_BIN2';

/** QueueChanges' values hold a keyFrom path (up to 200 characters) or a rate (`1000000/1d per key`). */
export const WIDEN_CHANGE_VALUES = ['old_value', 'new_value'].map(
  (c) => `ALTER TABLE readpast.QueueChanges ALTER COLUMN ${c} nvarchar(200) NOT NULL`,
);

const addColumn = (tableName: string, column: string, definition: string) => `IF COL_LENGTH(N'readpast.${tableName}', N'${column}') IS NULL
  ALTER TABLE readpast.${tableName} ADD ${column} ${definition};`;

export const migration: Migration = {
  version: 19,
  name: 'flow control: concurrency keys, fair turns, rate limits',
  batches: [
    addColumn('Tasks', 'concurrency_key', `nvarchar(200) COLLATE ${BIN2} NULL`),
    addColumn('Queues', 'per_key_limit', 'int NULL'),
    addColumn('Queues', 'key_from', 'nvarchar(200) NULL'),
    addColumn('Queues', 'rate_limit', 'int NULL'),
    addColumn('Queues', 'rate_period_s', 'int NULL'),
    addColumn('Queues', 'rate_per_key', 'bit NOT NULL CONSTRAINT DF_Queues_rate_per_key DEFAULT (0)'),
    // run through EXEC, as migration 5's ALTER COLUMN (the parse check does not know ALTER COLUMN with a type)
    ...WIDEN_CHANGE_VALUES.map(
      (alter, i) => `IF EXISTS (SELECT 1 FROM sys.columns WHERE object_id = OBJECT_ID(N'readpast.QueueChanges')
    AND name = N'${i === 0 ? 'old_value' : 'new_value'}' AND max_length < 400)
  EXEC(N'${alter}');`,
    ),
    table(
      'ConcurrencyKeys',
      `  queue           nvarchar(64)  COLLATE ${BIN2} NOT NULL,
  concurrency_key nvarchar(200) COLLATE ${BIN2} NOT NULL,
  served_at       bigint        NOT NULL CONSTRAINT DF_ConcurrencyKeys_served_at DEFAULT (0),
  CONSTRAINT PK_ConcurrencyKeys PRIMARY KEY CLUSTERED (queue, concurrency_key)`,
    ),
    // the key lanes in turn order: the claim reads keys least recently served first, across its candidate
    // queues, and stops at its TOP once enough keys qualify (no sort of every key)
    index(
      'ConcurrencyKeys',
      'IX_ConcurrencyKeys_served',
      'CREATE INDEX IX_ConcurrencyKeys_served ON readpast.ConcurrencyKeys (served_at, queue, concurrency_key)',
    ),
    table(
      'RateSlots',
      `  queue    nvarchar(64)  COLLATE ${BIN2} NOT NULL,
  rate_key nvarchar(200) COLLATE ${BIN2} NOT NULL,
  slot_no  int           NOT NULL,
  used_at  datetime2(3)  NOT NULL,
  task_id  bigint        NULL,
  CONSTRAINT PK_RateSlots PRIMARY KEY CLUSTERED (queue, rate_key, slot_no)`,
    ),
    // a free slot (the oldest used_at) and the window's count: a seek per (queue, rate_key)
    index('RateSlots', 'IX_RateSlots_used', 'CREATE INDEX IX_RateSlots_used ON readpast.RateSlots (queue, rate_key, used_at)'),
    index(
      'Tasks',
      'IX_Tasks_key_ready',
      'CREATE INDEX IX_Tasks_key_ready ON readpast.Tasks (queue, concurrency_key, priority DESC, id) INCLUDE (run_after) ' +
        "WHERE status = 'pending' AND batch_id IS NULL AND concurrency_key IS NOT NULL",
    ),
    index(
      'Tasks',
      'IX_Tasks_running_key',
      'CREATE INDEX IX_Tasks_running_key ON readpast.Tasks (queue, concurrency_key, lease_until) ' +
        "WHERE status = 'running' AND concurrency_key IS NOT NULL",
    ),
    index(
      'Tasks',
      'IX_Tasks_ready_unkeyed',
      'CREATE INDEX IX_Tasks_ready_unkeyed ON readpast.Tasks (queue, priority DESC, id) INCLUDE (run_after) ' +
        "WHERE status = 'pending' AND batch_id IS NULL AND concurrency_key IS NULL",
    ),
    dropIndex('Tasks', 'IX_Tasks_ready'),
    ...HOT_PROCEDURES.filter((p) => p.version === 19).map(createHotProcedure),
    ...CALLER_PROCEDURES.map(createProcedure),
    ASYNC_EXEC_RESULTS_VIEW,
    ...roleBatches(),
  ],
};
