// SQL Server migration 19: flow control — concurrency keys, fair turns across keys, rate limits.
//  - Tasks.concurrency_key (nvarchar(200), binary like queue names). Two filtered indexes: the key lanes'
//    dequeue order (a seek per (queue, key)) and the running tasks of a key with their lease (the per-key
//    limit's count). The unkeyed ready index is replaced by one that leaves keyed tasks out
//    (IX_Tasks_ready_unkeyed), so the unkeyed lane's head is a seek that never walks past keyed rows.
//  - Queues: per_key_limit, key_from, rate_limit, rate_period_s, rate_per_key (QueueChanges' values widen to
//    200 characters for a keyFrom path; ALTER COLUMN through EXEC).
//  - ConcurrencyKeys: one row per key with unfinished tasks, served_at = when a claim last started a task of the
//    key; IX_ConcurrencyKeys_served walks keys in turn order across queues.
//  - RateSlots: at most `rate_limit` slots per (queue, rate_key).
// The index builds hold Tasks for their time (offline): migrate when no worker runs, or expect a pause.
// Frozen: released, this text never changes (db/mssql/frozen-migrations.test.ts pins it); a fix is a new migration.
import type { Migration } from './migration';

export const migration: Migration = {
  version: 19,
  name: 'flow control: concurrency keys, fair turns, rate limits',
  batches: [
    `IF COL_LENGTH(N'readpast.Tasks', N'concurrency_key') IS NULL
  ALTER TABLE readpast.Tasks ADD concurrency_key nvarchar(200) COLLATE Latin1_General_100_BIN2 NULL;`,
    `IF COL_LENGTH(N'readpast.Queues', N'per_key_limit') IS NULL
  ALTER TABLE readpast.Queues ADD per_key_limit int NULL;`,
    `IF COL_LENGTH(N'readpast.Queues', N'key_from') IS NULL
  ALTER TABLE readpast.Queues ADD key_from nvarchar(200) NULL;`,
    `IF COL_LENGTH(N'readpast.Queues', N'rate_limit') IS NULL
  ALTER TABLE readpast.Queues ADD rate_limit int NULL;`,
    `IF COL_LENGTH(N'readpast.Queues', N'rate_period_s') IS NULL
  ALTER TABLE readpast.Queues ADD rate_period_s int NULL;`,
    `IF COL_LENGTH(N'readpast.Queues', N'rate_per_key') IS NULL
  ALTER TABLE readpast.Queues ADD rate_per_key bit NOT NULL CONSTRAINT DF_Queues_rate_per_key DEFAULT (0);`,
    `IF EXISTS (SELECT 1 FROM sys.columns WHERE object_id = OBJECT_ID(N'readpast.QueueChanges')
    AND name = N'old_value' AND max_length < 400)
  EXEC(N'ALTER TABLE readpast.QueueChanges ALTER COLUMN old_value nvarchar(200) NOT NULL');`,
    `IF EXISTS (SELECT 1 FROM sys.columns WHERE object_id = OBJECT_ID(N'readpast.QueueChanges')
    AND name = N'new_value' AND max_length < 400)
  EXEC(N'ALTER TABLE readpast.QueueChanges ALTER COLUMN new_value nvarchar(200) NOT NULL');`,
    `IF OBJECT_ID(N'readpast.ConcurrencyKeys', N'U') IS NULL
CREATE TABLE readpast.ConcurrencyKeys (
  queue           nvarchar(64)  COLLATE Latin1_General_100_BIN2 NOT NULL,
  concurrency_key nvarchar(200) COLLATE Latin1_General_100_BIN2 NOT NULL,
  served_at       bigint        NOT NULL CONSTRAINT DF_ConcurrencyKeys_served_at DEFAULT (0),
  CONSTRAINT PK_ConcurrencyKeys PRIMARY KEY CLUSTERED (queue, concurrency_key)
);`,
    `IF NOT EXISTS (SELECT 1 FROM sys.indexes
  WHERE object_id = OBJECT_ID(N'readpast.ConcurrencyKeys') AND name = N'IX_ConcurrencyKeys_served')
CREATE INDEX IX_ConcurrencyKeys_served ON readpast.ConcurrencyKeys (served_at, queue, concurrency_key);`,
    `IF OBJECT_ID(N'readpast.RateSlots', N'U') IS NULL
CREATE TABLE readpast.RateSlots (
  queue    nvarchar(64)  COLLATE Latin1_General_100_BIN2 NOT NULL,
  rate_key nvarchar(200) COLLATE Latin1_General_100_BIN2 NOT NULL,
  slot_no  int           NOT NULL,
  used_at  datetime2(3)  NOT NULL,
  task_id  bigint        NULL,
  CONSTRAINT PK_RateSlots PRIMARY KEY CLUSTERED (queue, rate_key, slot_no)
);`,
    `IF NOT EXISTS (SELECT 1 FROM sys.indexes
  WHERE object_id = OBJECT_ID(N'readpast.RateSlots') AND name = N'IX_RateSlots_used')
CREATE INDEX IX_RateSlots_used ON readpast.RateSlots (queue, rate_key, used_at);`,
    `IF NOT EXISTS (SELECT 1 FROM sys.indexes
  WHERE object_id = OBJECT_ID(N'readpast.Tasks') AND name = N'IX_Tasks_key_ready')
CREATE INDEX IX_Tasks_key_ready ON readpast.Tasks (queue, concurrency_key, priority DESC, id) INCLUDE (run_after) ` +
      `WHERE status = 'pending' AND batch_id IS NULL AND concurrency_key IS NOT NULL;`,
    `IF NOT EXISTS (SELECT 1 FROM sys.indexes
  WHERE object_id = OBJECT_ID(N'readpast.Tasks') AND name = N'IX_Tasks_running_key')
CREATE INDEX IX_Tasks_running_key ON readpast.Tasks (queue, concurrency_key, lease_until) WHERE status = 'running' AND ` +
      `concurrency_key IS NOT NULL;`,
    `IF NOT EXISTS (SELECT 1 FROM sys.indexes
  WHERE object_id = OBJECT_ID(N'readpast.Tasks') AND name = N'IX_Tasks_ready_unkeyed')
CREATE INDEX IX_Tasks_ready_unkeyed ON readpast.Tasks (queue, priority DESC, id) INCLUDE (run_after) WHERE status = ` +
      `'pending' AND batch_id IS NULL AND concurrency_key IS NULL;`,
    `IF EXISTS (SELECT 1 FROM sys.indexes WHERE object_id = OBJECT_ID(N'readpast.Tasks') AND name = N'IX_Tasks_ready')
  DROP INDEX IX_Tasks_ready ON readpast.Tasks;`,
  ],
};
