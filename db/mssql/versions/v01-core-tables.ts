// SQL Server migration 1: the core tables. Times are datetime2(3) in UTC, written with the server's clock
// (SYSUTCDATETIME), so every process and machine agrees on leases and due times. Unique and filtered indexes:
// the dedup key is unique among non-terminal tasks (the literal filter makes it partial); the dequeue order of
// unbatched tasks and of each batch's stage (a claim's `status = 'pending'` and `batch_id IS [NOT] NULL`
// literals match these filters); lease rescue; dead and cancelled; pruning. The identity keys take every insert
// on their last page: SQL Server 2019+, Azure SQL Database and Managed Instance (the last two report major
// version 12) can spread that with OPTIMIZE_FOR_SEQUENTIAL_KEY. The view ExecutionStatus as it was then (the
// code-object step installs today's, code-objects.ts).
// Frozen: released, this text never changes (db/mssql/frozen-migrations.test.ts pins it); a fix is a new migration.
import type { Migration } from './migration';

export const migration: Migration = {
  version: 1,
  name: 'core tables',
  batches: [
    `IF OBJECT_ID(N'readpast.Queues', N'U') IS NULL
CREATE TABLE readpast.Queues (
  name              nvarchar(64)  NOT NULL,
  concurrency_limit int           NULL,
  paused            bit           NOT NULL CONSTRAINT DF_Queues_paused DEFAULT (0),
  max_attempts      int           NOT NULL CONSTRAINT DF_Queues_max_attempts DEFAULT (5),
  timeout_ms        int           NULL,
  backoff_ms        int           NOT NULL CONSTRAINT DF_Queues_backoff_ms DEFAULT (1000),
  lock_version      bigint        NOT NULL CONSTRAINT DF_Queues_lock_version DEFAULT (0),
  created_at        datetime2(3)  NOT NULL CONSTRAINT DF_Queues_created_at DEFAULT (SYSUTCDATETIME()),
  CONSTRAINT PK_Queues PRIMARY KEY CLUSTERED (name)
);`,
    `IF OBJECT_ID(N'readpast.Tasks', N'U') IS NULL
CREATE TABLE readpast.Tasks (
  id               bigint IDENTITY(1, 1) NOT NULL,
  token            uniqueidentifier NOT NULL,
  queue            nvarchar(64)   NOT NULL,
  kind             varchar(10)    NOT NULL,
  command          nvarchar(max)  NOT NULL,
  payload          nvarchar(max)  NULL,
  status           varchar(10)    NOT NULL,
  priority         int            NOT NULL CONSTRAINT DF_Tasks_priority DEFAULT (0),
  run_after        datetime2(3)   NOT NULL,
  attempts         int            NOT NULL CONSTRAINT DF_Tasks_attempts DEFAULT (0),
  max_attempts     int            NOT NULL,
  timeout_ms       int            NULL,
  dedup_key        nvarchar(200)  NULL,
  caller           nvarchar(200)  NULL,
  batch_id         bigint         NULL,
  stage            int            NULL,
  lease_until      datetime2(3)   NULL,
  worker_id        nvarchar(256)  NULL,
  token_no         int            NULL,
  cancel_requested bit            NOT NULL CONSTRAINT DF_Tasks_cancel_requested DEFAULT (0),
  created_at       datetime2(3)   NOT NULL,
  started_at       datetime2(3)   NULL,
  finished_at      datetime2(3)   NULL,
  error_number     int            NULL,
  error_message    nvarchar(4000) NULL,
  error_detail     nvarchar(max)  NULL,
  result           nvarchar(max)  NULL,
  CONSTRAINT PK_Tasks PRIMARY KEY CLUSTERED (id),
  CONSTRAINT CK_Tasks_status CHECK (status IN ('pending', 'running', 'succeeded', 'dead', 'cancelled'))
);`,
    `IF NOT EXISTS (SELECT 1 FROM sys.indexes
  WHERE object_id = OBJECT_ID(N'readpast.Tasks') AND name = N'UX_Tasks_token')
CREATE UNIQUE INDEX UX_Tasks_token ON readpast.Tasks (token);`,
    `IF NOT EXISTS (SELECT 1 FROM sys.indexes
  WHERE object_id = OBJECT_ID(N'readpast.Tasks') AND name = N'UX_Tasks_dedup')
CREATE UNIQUE INDEX UX_Tasks_dedup ON readpast.Tasks (dedup_key) WHERE dedup_key IS NOT NULL AND status IN ('pending', 'running');`,
    `IF NOT EXISTS (SELECT 1 FROM sys.indexes
  WHERE object_id = OBJECT_ID(N'readpast.Tasks') AND name = N'IX_Tasks_dequeue')
CREATE INDEX IX_Tasks_dequeue ON readpast.Tasks (priority DESC, id) INCLUDE (queue, run_after) WHERE status = ` +
      `'pending' AND batch_id IS NULL;`,
    `IF NOT EXISTS (SELECT 1 FROM sys.indexes
  WHERE object_id = OBJECT_ID(N'readpast.Tasks') AND name = N'IX_Tasks_batch_dequeue')
CREATE INDEX IX_Tasks_batch_dequeue ON readpast.Tasks (batch_id, stage, priority DESC, id) INCLUDE (queue, run_after) ` +
      `WHERE status = 'pending' AND batch_id IS NOT NULL;`,
    `IF NOT EXISTS (SELECT 1 FROM sys.indexes
  WHERE object_id = OBJECT_ID(N'readpast.Tasks') AND name = N'IX_Tasks_batch')
CREATE INDEX IX_Tasks_batch ON readpast.Tasks (batch_id, stage, id) WHERE batch_id IS NOT NULL;`,
    `IF NOT EXISTS (SELECT 1 FROM sys.indexes
  WHERE object_id = OBJECT_ID(N'readpast.Tasks') AND name = N'IX_Tasks_running')
CREATE INDEX IX_Tasks_running ON readpast.Tasks (lease_until) INCLUDE (worker_id, attempts) WHERE status = 'running';`,
    `IF NOT EXISTS (SELECT 1 FROM sys.indexes
  WHERE object_id = OBJECT_ID(N'readpast.Tasks') AND name = N'IX_Tasks_ended')
CREATE INDEX IX_Tasks_ended ON readpast.Tasks (status, id) INCLUDE (queue) WHERE status IN ('dead', 'cancelled');`,
    `IF NOT EXISTS (SELECT 1 FROM sys.indexes
  WHERE object_id = OBJECT_ID(N'readpast.Tasks') AND name = N'IX_Tasks_finished')
CREATE INDEX IX_Tasks_finished ON readpast.Tasks (finished_at) INCLUDE (queue, status) WHERE finished_at IS NOT NULL;`,
    `IF OBJECT_ID(N'readpast.ExecutionLog', N'U') IS NULL
CREATE TABLE readpast.ExecutionLog (
  id            bigint IDENTITY(1, 1) NOT NULL,
  task_id       bigint         NOT NULL,
  attempt       int            NOT NULL,
  queue         nvarchar(64)   NOT NULL,
  kind          varchar(10)    NOT NULL,
  command       nvarchar(max)  NOT NULL,
  worker_id     nvarchar(256)  NULL,
  session       int            NULL,
  token_no      int            NULL,
  batch_id      bigint         NULL,
  stage         int            NULL,
  started_at    datetime2(3)   NOT NULL,
  ended_at      datetime2(3)   NULL,
  outcome       varchar(10)    NOT NULL,
  error_number  int            NULL,
  error_message nvarchar(4000) NULL,
  error_detail  nvarchar(max)  NULL,
  CONSTRAINT PK_ExecutionLog PRIMARY KEY CLUSTERED (id)
);`,
    `IF NOT EXISTS (SELECT 1 FROM sys.indexes
  WHERE object_id = OBJECT_ID(N'readpast.ExecutionLog') AND name = N'UX_ExecutionLog_attempt')
CREATE UNIQUE INDEX UX_ExecutionLog_attempt ON readpast.ExecutionLog (task_id, attempt);`,
    `IF NOT EXISTS (SELECT 1 FROM sys.indexes
  WHERE object_id = OBJECT_ID(N'readpast.ExecutionLog') AND name = N'IX_ExecutionLog_open')
CREATE INDEX IX_ExecutionLog_open ON readpast.ExecutionLog (task_id) INCLUDE (attempt) WHERE ended_at IS NULL;`,
    `IF NOT EXISTS (SELECT 1 FROM sys.indexes
  WHERE object_id = OBJECT_ID(N'readpast.ExecutionLog') AND name = N'IX_ExecutionLog_unsuccessful')
CREATE INDEX IX_ExecutionLog_unsuccessful ON readpast.ExecutionLog (outcome, id) WHERE outcome IN ('failed', ` +
      `'abandoned', 'cancelled', 'timed_out');`,
    `IF OBJECT_ID(N'readpast.Workers', N'U') IS NULL
CREATE TABLE readpast.Workers (
  worker_id    nvarchar(256) NOT NULL,
  host         nvarchar(256) NOT NULL,
  pid          int           NOT NULL,
  role         nvarchar(32)  NOT NULL,
  session      int           NOT NULL,
  login_time   datetime      NOT NULL,
  started_at   datetime2(3)  NOT NULL,
  heartbeat_at datetime2(3)  NOT NULL,
  state        varchar(10)   NOT NULL,
  stopped_at   datetime2(3)  NULL,
  CONSTRAINT PK_Workers PRIMARY KEY CLUSTERED (worker_id)
);`,
    `IF OBJECT_ID(N'readpast.Handlers', N'U') IS NULL
CREATE TABLE readpast.Handlers (
  name    nvarchar(128) NOT NULL,
  seen_at datetime2(3)  NOT NULL,
  CONSTRAINT PK_Handlers PRIMARY KEY CLUSTERED (name)
);`,
    `IF OBJECT_ID(N'readpast.QueueCounts', N'U') IS NULL
CREATE TABLE readpast.QueueCounts (
  queue  nvarchar(64) NOT NULL,
  status varchar(10)  NOT NULL,
  n      bigint       NOT NULL,
  CONSTRAINT PK_QueueCounts PRIMARY KEY CLUSTERED (queue, status)
);`,
    `IF OBJECT_ID(N'readpast.Metrics', N'U') IS NULL
CREATE TABLE readpast.Metrics (
  sec         bigint NOT NULL,
  enqueued    int    NOT NULL,
  started     int    NOT NULL,
  succeeded   int    NOT NULL,
  failed      int    NOT NULL,
  latency_sum bigint NOT NULL,
  latency_max int    NOT NULL,
  depth       int    NULL,
  CONSTRAINT PK_Metrics PRIMARY KEY CLUSTERED (sec)
);`,
    `IF OBJECT_ID(N'readpast.ConcurrencyTokens', N'U') IS NULL
CREATE TABLE readpast.ConcurrencyTokens (
  queue      nvarchar(64)  NOT NULL,
  token_no   int           NOT NULL,
  status     varchar(10)   NOT NULL CONSTRAINT DF_ConcurrencyTokens_status DEFAULT ('free'),
  task_id    bigint        NULL,
  attempt    int           NULL,
  worker_id  nvarchar(256) NULL,
  granted_at datetime2(3)  NULL,
  CONSTRAINT PK_ConcurrencyTokens PRIMARY KEY CLUSTERED (queue, token_no)
);`,
    `IF OBJECT_ID(N'readpast.QueueChanges', N'U') IS NULL
CREATE TABLE readpast.QueueChanges (
  id         bigint IDENTITY(1, 1) NOT NULL,
  queue      nvarchar(64)  NOT NULL,
  at         datetime2(3)  NOT NULL,
  changed_by nvarchar(200) NOT NULL,
  field      varchar(32)   NOT NULL,
  old_value  nvarchar(64)  NOT NULL,
  new_value  nvarchar(64)  NOT NULL,
  CONSTRAINT PK_QueueChanges PRIMARY KEY CLUSTERED (id)
);`,
    `IF NOT EXISTS (SELECT 1 FROM sys.indexes
  WHERE object_id = OBJECT_ID(N'readpast.QueueChanges') AND name = N'IX_QueueChanges_queue')
CREATE INDEX IX_QueueChanges_queue ON readpast.QueueChanges (queue, id);`,
    `IF OBJECT_ID(N'readpast.Batches', N'U') IS NULL
CREATE TABLE readpast.Batches (
  id           bigint IDENTITY(1, 1) NOT NULL,
  caller       nvarchar(200) NULL,
  max_parallel int           NULL,
  on_failure   varchar(10)   NOT NULL CONSTRAINT DF_Batches_on_failure DEFAULT ('continue'),
  status       varchar(10)   NOT NULL CONSTRAINT DF_Batches_status DEFAULT ('open'),
  served_at    bigint        NOT NULL CONSTRAINT DF_Batches_served_at DEFAULT (0),
  created_at   datetime2(3)  NOT NULL,
  released_at  datetime2(3)  NULL,
  completed_at datetime2(3)  NULL,
  CONSTRAINT PK_Batches PRIMARY KEY CLUSTERED (id)
);`,
    `IF NOT EXISTS (SELECT 1 FROM sys.indexes
  WHERE object_id = OBJECT_ID(N'readpast.Batches') AND name = N'IX_Batches_live')
CREATE INDEX IX_Batches_live ON readpast.Batches (served_at, id) WHERE status IN ('open', 'released', 'aborted');`,
    `IF OBJECT_ID(N'readpast.BatchStages', N'U') IS NULL
CREATE TABLE readpast.BatchStages (
  batch_id         bigint       NOT NULL,
  stage            int          NOT NULL,
  total            int          NOT NULL,
  pending          int          NOT NULL,
  running          int          NOT NULL,
  succeeded        int          NOT NULL,
  dead             int          NOT NULL,
  cancelled        int          NOT NULL,
  first_started_at datetime2(3) NULL,
  last_ended_at    datetime2(3) NULL,
  CONSTRAINT PK_BatchStages PRIMARY KEY CLUSTERED (batch_id, stage)
);`,
    `CREATE OR ALTER VIEW readpast.ExecutionStatus AS
  SELECT l.id AS log_id, l.task_id, t.token, l.queue, l.kind, l.command, l.attempt, t.max_attempts,
         l.worker_id, l.session, l.token_no, l.batch_id, l.stage, l.started_at, t.lease_until, t.cancel_requested
  FROM readpast.ExecutionLog AS l
  JOIN readpast.Tasks AS t ON t.id = l.task_id
  WHERE l.ended_at IS NULL AND t.status = 'running' AND t.attempts = l.attempt;`,
    `IF (CAST(SERVERPROPERTY('ProductMajorVersion') AS int) >= 15 OR CAST(SERVERPROPERTY('EngineEdition') AS int) IN (5, 8))
  EXEC(N'ALTER INDEX PK_Tasks ON readpast.Tasks SET (OPTIMIZE_FOR_SEQUENTIAL_KEY = ON)');`,
    `IF (CAST(SERVERPROPERTY('ProductMajorVersion') AS int) >= 15 OR CAST(SERVERPROPERTY('EngineEdition') AS int) IN (5, 8))
  EXEC(N'ALTER INDEX PK_ExecutionLog ON readpast.ExecutionLog SET (OPTIMIZE_FOR_SEQUENTIAL_KEY = ON)');`,
  ],
};
