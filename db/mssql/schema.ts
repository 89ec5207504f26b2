// The SQL Server schema `readpast`, as numbered migrations. Same tables and column names as the
// SQLite store. Times are datetime2(3) in UTC, written with the server's clock (SYSUTCDATETIME),
// so every process and machine agrees on leases and due times.
//
// Each migration is a list of batches run in one transaction on one connection, under a
// session-owned application lock (see migrations.ts). Every statement is also guarded on its own
// (IF OBJECT_ID … IS NULL, CREATE OR ALTER), so a re-run is harmless.

import { migration as v7 } from './versions/v07-audit';
import { migration as v8 } from './versions/v08-history';
import { migration as v9 } from './versions/v09-attempt-logs';
import { migration as v10 } from './versions/v10-alerts';
import { migration as v11 } from './versions/v11-browser';
import { migration as v12 } from './versions/v12-fingerprints';
import { migration as v13 } from './versions/v13-pool-settings';
import { migration as v14 } from './versions/v14-worker-queues';
import { migration as v15 } from './versions/v15-abandon-reason';
import { migration as v16 } from './versions/v16-callers-utf8-dedup';
import { migration as v17 } from './versions/v17-hot-procedures';
import { migration as v18 } from './versions/v18-time-ordered-tokens';
import { migration as v19 } from './versions/v19-flow-control';
import { migration as v20, WORKFLOW_COLUMNS } from './versions/v20-workflows';
import { migration as v22 } from './versions/v22-trace-context';
import { dropIndex, index, table } from './ddl';
import { ASYNC_EXEC_RESULTS_VIEW, CALLER_PROCEDURES, createProcedure, roleBatches } from './sql/callers';
import { METRICS_DEAD_COLUMN } from './sql/history';
import { SEED_ALLOW_SQL } from './sql/migrations';

import type { Migration } from './versions/migration';

export type { Migration };

/**
 * Whether the server has OPTIMIZE_FOR_SEQUENTIAL_KEY: SQL Server 2019 (15) and later, Azure SQL
 * Database (EngineEdition 5) and Managed Instance (8), which report major version 12 whatever they run.
 */
const SEQUENTIAL_KEY =
  "(CAST(SERVERPROPERTY('ProductMajorVersion') AS int) >= 15 OR CAST(SERVERPROPERTY('EngineEdition') AS int) IN (5, 8))";

/**
 * The collation of queue names, dedup keys and handler names: binary (code point by code point), as
 * SQLite compares TEXT, whatever the database's default collation.
 */
export const NAME_COLLATION = 'Latin1_General_100_BIN2';

export interface NameColumn {
  table: string;
  column: string;
  type: string;
  nullable: boolean;
}

interface NameTable {
  table: string;
  columns: readonly NameColumn[];
  /** its primary key, when it holds one of the columns: dropped, and added back after */
  primaryKey?: { name: string; columns: string };
  /** indexes that name one of the columns (key or included): dropped, and created again after (as before) */
  indexes: readonly { name: string; definition: string }[];
}

const nameColumn = (table: string, column: string, type = 'nvarchar(64)', nullable = false): NameColumn => ({
  table,
  column,
  type,
  nullable,
});

/** Every column holding a queue name, a dedup key or a handler name, by table, with what depends on it. */
export const NAME_TABLES: readonly NameTable[] = [
  { table: 'Queues', columns: [nameColumn('Queues', 'name')], primaryKey: { name: 'PK_Queues', columns: 'name' }, indexes: [] },
  {
    table: 'Tasks',
    columns: [nameColumn('Tasks', 'queue'), nameColumn('Tasks', 'dedup_key', 'nvarchar(200)', true)],
    indexes: [
      {
        name: 'UX_Tasks_dedup',
        definition:
          'CREATE UNIQUE INDEX UX_Tasks_dedup ON readpast.Tasks (dedup_key) WHERE dedup_key IS NOT NULL AND status IN ' +
          "('pending', 'running')",
      },
      {
        name: 'IX_Tasks_batch_dequeue',
        definition:
          'CREATE INDEX IX_Tasks_batch_dequeue ON readpast.Tasks (batch_id, stage, priority DESC, id) INCLUDE (queue, ' +
          "run_after) WHERE status = 'pending' AND batch_id IS NOT NULL",
      },
      {
        name: 'IX_Tasks_ended',
        definition: "CREATE INDEX IX_Tasks_ended ON readpast.Tasks (status, id) INCLUDE (queue) WHERE status IN ('dead', 'cancelled')",
      },
      {
        name: 'IX_Tasks_finished',
        definition: 'CREATE INDEX IX_Tasks_finished ON readpast.Tasks (finished_at) INCLUDE (queue, status) WHERE finished_at IS NOT NULL',
      },
      {
        name: 'IX_Tasks_ready',
        definition:
          'CREATE INDEX IX_Tasks_ready ON readpast.Tasks (queue, priority DESC, id) INCLUDE (run_after) WHERE status = ' +
          "'pending' AND batch_id IS NULL",
      },
      {
        name: 'IX_Tasks_running_queue',
        definition: "CREATE INDEX IX_Tasks_running_queue ON readpast.Tasks (queue, lease_until) WHERE status = 'running'",
      },
    ],
  },
  { table: 'ExecutionLog', columns: [nameColumn('ExecutionLog', 'queue')], indexes: [] },
  {
    table: 'QueueCounts',
    columns: [nameColumn('QueueCounts', 'queue')],
    primaryKey: { name: 'PK_QueueCounts', columns: 'queue, status, slot' },
    indexes: [],
  },
  {
    table: 'ConcurrencyTokens',
    columns: [nameColumn('ConcurrencyTokens', 'queue')],
    primaryKey: { name: 'PK_ConcurrencyTokens', columns: 'queue, token_no' },
    indexes: [],
  },
  {
    table: 'QueueChanges',
    columns: [nameColumn('QueueChanges', 'queue')],
    indexes: [{ name: 'IX_QueueChanges_queue', definition: 'CREATE INDEX IX_QueueChanges_queue ON readpast.QueueChanges (queue, id)' }],
  },
  {
    table: 'Handlers',
    columns: [nameColumn('Handlers', 'name', 'nvarchar(128)')],
    primaryKey: { name: 'PK_Handlers', columns: 'name' },
    indexes: [],
  },
  { table: 'Schedules', columns: [nameColumn('Schedules', 'queue')], indexes: [] },
];

/** The ALTER COLUMN giving a column the binary collation (run through EXEC: the parse check does not know ALTER COLUMN). */
export const alterToBinary = (c: NameColumn) =>
  `ALTER TABLE readpast.${c.table} ALTER COLUMN ${c.column} ${c.type} COLLATE ${NAME_COLLATION} ${c.nullable ? 'NULL' : 'NOT NULL'}`;

/** One table's batch: unless its name columns are binary already, drop what names them, alter them, add its key back. */
function toBinaryCollation(t: NameTable): string {
  const names = t.columns.map((c) => `N'${c.column}'`).join(', ');
  const pk = t.primaryKey;
  return `IF EXISTS (SELECT 1 FROM sys.columns AS c WHERE c.object_id = OBJECT_ID(N'readpast.${t.table}') AND c.name IN (${names})
    AND c.collation_name <> N'${NAME_COLLATION}')
BEGIN
  DECLARE @stat nvarchar(400) = N'';
${t.indexes
  .map(
    (i) => `  IF EXISTS (SELECT 1 FROM sys.indexes WHERE object_id = OBJECT_ID(N'readpast.${t.table}') AND name = N'${i.name}')
    DROP INDEX ${i.name} ON readpast.${t.table};
`,
  )
  .join('')}${
  pk
    ? `  IF EXISTS (SELECT 1 FROM sys.key_constraints WHERE parent_object_id = OBJECT_ID(N'readpast.${t.table}') AND name = N'${pk.name}')
    ALTER TABLE readpast.${t.table} DROP CONSTRAINT ${pk.name};
`
    : ''
}  -- statistics on the columns, made automatically or by hand (an index's go with it)
  WHILE @stat IS NOT NULL
  BEGIN
    SET @stat = NULL;
    SELECT TOP (1) @stat = N'DROP STATISTICS readpast.${t.table}.' + QUOTENAME(s.name)
      FROM sys.stats AS s
      JOIN sys.stats_columns AS sc ON sc.object_id = s.object_id AND sc.stats_id = s.stats_id
      JOIN sys.columns AS c ON c.object_id = sc.object_id AND c.column_id = sc.column_id
      WHERE s.object_id = OBJECT_ID(N'readpast.${t.table}') AND c.name IN (${names})
        AND NOT EXISTS (SELECT 1 FROM sys.indexes AS i WHERE i.object_id = s.object_id AND i.index_id = s.stats_id);
    IF @stat IS NOT NULL
      EXEC (@stat);
  END;
${t.columns
  .map(
    (c) => `  EXEC(N'${alterToBinary(c)}');
`,
  )
  .join('')}${
  pk
    ? `  ALTER TABLE readpast.${t.table} ADD CONSTRAINT ${pk.name} PRIMARY KEY CLUSTERED (${pk.columns});
`
    : ''
}END;`;
}

export const TASK_STATUSES_SQL = "('pending', 'running', 'succeeded', 'dead', 'cancelled')";

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'core tables',
    batches: [
      table(
        'Queues',
        `  name              nvarchar(64)  NOT NULL,
  concurrency_limit int           NULL,
  paused            bit           NOT NULL CONSTRAINT DF_Queues_paused DEFAULT (0),
  max_attempts      int           NOT NULL CONSTRAINT DF_Queues_max_attempts DEFAULT (5),
  timeout_ms        int           NULL,
  backoff_ms        int           NOT NULL CONSTRAINT DF_Queues_backoff_ms DEFAULT (1000),
  lock_version      bigint        NOT NULL CONSTRAINT DF_Queues_lock_version DEFAULT (0),
  created_at        datetime2(3)  NOT NULL CONSTRAINT DF_Queues_created_at DEFAULT (SYSUTCDATETIME()),
  CONSTRAINT PK_Queues PRIMARY KEY CLUSTERED (name)`,
      ),

      table(
        'Tasks',
        `  id               bigint IDENTITY(1, 1) NOT NULL,
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
  CONSTRAINT CK_Tasks_status CHECK (status IN ${TASK_STATUSES_SQL})`,
      ),
      index('Tasks', 'UX_Tasks_token', 'CREATE UNIQUE INDEX UX_Tasks_token ON readpast.Tasks (token)'),
      // unique among non-terminal tasks; the literal filter is what makes it partial
      index(
        'Tasks',
        'UX_Tasks_dedup',
        "CREATE UNIQUE INDEX UX_Tasks_dedup ON readpast.Tasks (dedup_key) WHERE dedup_key IS NOT NULL AND status IN ('pending', 'running')",
      ),
      // the dequeue order of unbatched tasks, and of each batch's stage; a claim's `status = 'pending'`
      // and `batch_id IS [NOT] NULL` literals match these filters
      index(
        'Tasks',
        'IX_Tasks_dequeue',
        'CREATE INDEX IX_Tasks_dequeue ON readpast.Tasks (priority DESC, id) INCLUDE (queue, run_after) WHERE status = ' +
          "'pending' AND batch_id IS NULL",
      ),
      index(
        'Tasks',
        'IX_Tasks_batch_dequeue',
        'CREATE INDEX IX_Tasks_batch_dequeue ON readpast.Tasks (batch_id, stage, priority DESC, id) INCLUDE (queue, ' +
          "run_after) WHERE status = 'pending' AND batch_id IS NOT NULL",
      ),
      index('Tasks', 'IX_Tasks_batch', 'CREATE INDEX IX_Tasks_batch ON readpast.Tasks (batch_id, stage, id) WHERE batch_id IS NOT NULL'),
      // lease rescue and ExecutionStatus
      index(
        'Tasks',
        'IX_Tasks_running',
        "CREATE INDEX IX_Tasks_running ON readpast.Tasks (lease_until) INCLUDE (worker_id, attempts) WHERE status = 'running'",
      ),
      // failed & poison, cancelled
      index(
        'Tasks',
        'IX_Tasks_ended',
        "CREATE INDEX IX_Tasks_ended ON readpast.Tasks (status, id) INCLUDE (queue) WHERE status IN ('dead', 'cancelled')",
      ),
      // pruning of finished tasks
      index(
        'Tasks',
        'IX_Tasks_finished',
        'CREATE INDEX IX_Tasks_finished ON readpast.Tasks (finished_at) INCLUDE (queue, status) WHERE finished_at IS NOT NULL',
      ),

      table(
        'ExecutionLog',
        `  id            bigint IDENTITY(1, 1) NOT NULL,
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
  CONSTRAINT PK_ExecutionLog PRIMARY KEY CLUSTERED (id)`,
      ),
      index(
        'ExecutionLog',
        'UX_ExecutionLog_attempt',
        'CREATE UNIQUE INDEX UX_ExecutionLog_attempt ON readpast.ExecutionLog (task_id, attempt)',
      ),
      index(
        'ExecutionLog',
        'IX_ExecutionLog_open',
        'CREATE INDEX IX_ExecutionLog_open ON readpast.ExecutionLog (task_id) INCLUDE (attempt) WHERE ended_at IS NULL',
      ),
      index(
        'ExecutionLog',
        'IX_ExecutionLog_unsuccessful',
        'CREATE INDEX IX_ExecutionLog_unsuccessful ON readpast.ExecutionLog (outcome, id) ' +
          "WHERE outcome IN ('failed', 'abandoned', 'cancelled', 'timed_out')",
      ),

      table(
        'Workers',
        `  worker_id    nvarchar(256) NOT NULL,
  host         nvarchar(256) NOT NULL,
  pid          int           NOT NULL,
  role         nvarchar(32)  NOT NULL,
  session      int           NOT NULL,
  login_time   datetime      NOT NULL,
  started_at   datetime2(3)  NOT NULL,
  heartbeat_at datetime2(3)  NOT NULL,
  state        varchar(10)   NOT NULL,
  stopped_at   datetime2(3)  NULL,
  CONSTRAINT PK_Workers PRIMARY KEY CLUSTERED (worker_id)`,
      ),

      table(
        'Handlers',
        `  name    nvarchar(128) NOT NULL,
  seen_at datetime2(3)  NOT NULL,
  CONSTRAINT PK_Handlers PRIMARY KEY CLUSTERED (name)`,
      ),

      // kept per-queue status counts: one row per (queue, status), created with the queue
      table(
        'QueueCounts',
        `  queue  nvarchar(64) NOT NULL,
  status varchar(10)  NOT NULL,
  n      bigint       NOT NULL,
  CONSTRAINT PK_QueueCounts PRIMARY KEY CLUSTERED (queue, status)`,
      ),

      // one row per second of activity (sec = seconds since 1970-01-01 UTC)
      table(
        'Metrics',
        `  sec         bigint NOT NULL,
  enqueued    int    NOT NULL,
  started     int    NOT NULL,
  succeeded   int    NOT NULL,
  failed      int    NOT NULL,
  latency_sum bigint NOT NULL,
  latency_max int    NOT NULL,
  depth       int    NULL,
  CONSTRAINT PK_Metrics PRIMARY KEY CLUSTERED (sec)`,
      ),

      // Taskling's tokens: a limited queue has tokens 1..limit; a claim grants one in its transaction
      table(
        'ConcurrencyTokens',
        `  queue      nvarchar(64)  NOT NULL,
  token_no   int           NOT NULL,
  status     varchar(10)   NOT NULL CONSTRAINT DF_ConcurrencyTokens_status DEFAULT ('free'),
  task_id    bigint        NULL,
  attempt    int           NULL,
  worker_id  nvarchar(256) NULL,
  granted_at datetime2(3)  NULL,
  CONSTRAINT PK_ConcurrencyTokens PRIMARY KEY CLUSTERED (queue, token_no)`,
      ),

      table(
        'QueueChanges',
        `  id         bigint IDENTITY(1, 1) NOT NULL,
  queue      nvarchar(64)  NOT NULL,
  at         datetime2(3)  NOT NULL,
  changed_by nvarchar(200) NOT NULL,
  field      varchar(32)   NOT NULL,
  old_value  nvarchar(64)  NOT NULL,
  new_value  nvarchar(64)  NOT NULL,
  CONSTRAINT PK_QueueChanges PRIMARY KEY CLUSTERED (id)`,
      ),
      index('QueueChanges', 'IX_QueueChanges_queue', 'CREATE INDEX IX_QueueChanges_queue ON readpast.QueueChanges (queue, id)'),

      // the seeds' scheduler handles: ordered stages of parallel tasks
      table(
        'Batches',
        `  id           bigint IDENTITY(1, 1) NOT NULL,
  caller       nvarchar(200) NULL,
  max_parallel int           NULL,
  on_failure   varchar(10)   NOT NULL CONSTRAINT DF_Batches_on_failure DEFAULT ('continue'),
  status       varchar(10)   NOT NULL CONSTRAINT DF_Batches_status DEFAULT ('open'),
  served_at    bigint        NOT NULL CONSTRAINT DF_Batches_served_at DEFAULT (0),
  created_at   datetime2(3)  NOT NULL,
  released_at  datetime2(3)  NULL,
  completed_at datetime2(3)  NULL,
  CONSTRAINT PK_Batches PRIMARY KEY CLUSTERED (id)`,
      ),
      index(
        'Batches',
        'IX_Batches_live',
        "CREATE INDEX IX_Batches_live ON readpast.Batches (served_at, id) WHERE status IN ('open', 'released', 'aborted')",
      ),

      // kept per-stage counts of each batch
      table(
        'BatchStages',
        `  batch_id         bigint       NOT NULL,
  stage            int          NOT NULL,
  total            int          NOT NULL,
  pending          int          NOT NULL,
  running          int          NOT NULL,
  succeeded        int          NOT NULL,
  dead             int          NOT NULL,
  cancelled        int          NOT NULL,
  first_started_at datetime2(3) NULL,
  last_ended_at    datetime2(3) NULL,
  CONSTRAINT PK_BatchStages PRIMARY KEY CLUSTERED (batch_id, stage)`,
      ),

      `CREATE OR ALTER VIEW readpast.ExecutionStatus AS
  SELECT l.id AS log_id, l.task_id, t.token, l.queue, l.kind, l.command, l.attempt, t.max_attempts,
         l.worker_id, l.session, l.token_no, l.batch_id, l.stage, l.started_at, t.lease_until, t.cancel_requested
  FROM readpast.ExecutionLog AS l
  JOIN readpast.Tasks AS t ON t.id = l.task_id
  WHERE l.ended_at IS NULL AND t.status = 'running' AND t.attempts = l.attempt;`,

      // the identity keys take every insert on their last page; SQL Server 2019+, Azure SQL Database
      // and Managed Instance can spread that (the last two report major version 12: see SEQUENTIAL_KEY)
      `IF ${SEQUENTIAL_KEY}
  EXEC(N'ALTER INDEX PK_Tasks ON readpast.Tasks SET (OPTIMIZE_FOR_SEQUENTIAL_KEY = ON)');`,
      `IF ${SEQUENTIAL_KEY}
  EXEC(N'ALTER INDEX PK_ExecutionLog ON readpast.ExecutionLog SET (OPTIMIZE_FOR_SEQUENTIAL_KEY = ON)');`,
    ],
  },
  {
    version: 2,
    name: 'counts and metrics sharded by slot',
    // Every enqueue, claim, settlement and rescue bumps its queue's QueueCounts rows and this second's
    // Metrics row and holds them to commit: one hot row would serialise every writer of the database.
    // A small slot number in the key (the writer's session id modulo 16, sql/tally.ts) spreads those
    // writes over up to 16 rows per key; every reader sums over the slots. Existing rows become slot 0.
    // Each batch is guarded on its own, so a re-run is harmless.
    batches: [
      `IF COL_LENGTH(N'readpast.QueueCounts', N'slot') IS NULL
  ALTER TABLE readpast.QueueCounts ADD slot tinyint NOT NULL CONSTRAINT DF_QueueCounts_slot DEFAULT (0);`,
      `IF COL_LENGTH(N'readpast.Metrics', N'slot') IS NULL
  ALTER TABLE readpast.Metrics ADD slot tinyint NOT NULL CONSTRAINT DF_Metrics_slot DEFAULT (0);`,
      `IF NOT EXISTS (SELECT 1 FROM sys.indexes AS i
    JOIN sys.index_columns AS ic ON ic.object_id = i.object_id AND ic.index_id = i.index_id
    JOIN sys.columns AS c ON c.object_id = ic.object_id AND c.column_id = ic.column_id
  WHERE i.object_id = OBJECT_ID(N'readpast.QueueCounts') AND i.is_primary_key = 1 AND c.name = N'slot')
BEGIN
  ALTER TABLE readpast.QueueCounts DROP CONSTRAINT PK_QueueCounts;
  ALTER TABLE readpast.QueueCounts ADD CONSTRAINT PK_QueueCounts PRIMARY KEY CLUSTERED (queue, status, slot);
END;`,
      `IF NOT EXISTS (SELECT 1 FROM sys.indexes AS i
    JOIN sys.index_columns AS ic ON ic.object_id = i.object_id AND ic.index_id = i.index_id
    JOIN sys.columns AS c ON c.object_id = ic.object_id AND c.column_id = ic.column_id
  WHERE i.object_id = OBJECT_ID(N'readpast.Metrics') AND i.is_primary_key = 1 AND c.name = N'slot')
BEGIN
  ALTER TABLE readpast.Metrics DROP CONSTRAINT PK_Metrics;
  ALTER TABLE readpast.Metrics ADD CONSTRAINT PK_Metrics PRIMARY KEY CLUSTERED (sec, slot);
END;`,
    ],
  },
  {
    version: 3,
    name: 'the claim seeks per queue',
    // IX_Tasks_dequeue led with priority: each claim walked (and locked) every higher-priority row of
    // other, paused or full queues, and every delayed one, before reaching its own. The claim now reads
    // the head of each candidate queue with a seek on IX_Tasks_ready (its literal filter matches the
    // claim's `status = 'pending' AND batch_id IS NULL`) and locks only the row it takes, by its key
    // (sql/claim.ts). A limited queue's room counts its running tasks with a live lease: a seek on
    // IX_Tasks_running_queue over a handful of rows. The index builds hold the table for their time
    // (offline: ONLINE = ON needs Enterprise edition); migrate when no worker runs, or expect a pause.
    batches: [
      index(
        'Tasks',
        'IX_Tasks_ready',
        'CREATE INDEX IX_Tasks_ready ON readpast.Tasks (queue, priority DESC, id) INCLUDE (run_after) WHERE status = ' +
          "'pending' AND batch_id IS NULL",
      ),
      dropIndex('Tasks', 'IX_Tasks_dequeue'),
      index(
        'Tasks',
        'IX_Tasks_running_queue',
        "CREATE INDEX IX_Tasks_running_queue ON readpast.Tasks (queue, lease_until) WHERE status = 'running'",
      ),
    ],
  },
  {
    version: 4,
    name: 'schedules',
    // Recurring tasks. A fire is a task carrying (schedule_name, schedule_fire_at): the filtered unique
    // index makes a second task for one tick impossible, however many processes fire (sql/schedules.ts).
    // A manual run has no tick (schedule_fire_at NULL). The columns are added in batches of their own,
    // before the indexes that name them are compiled. Schedule names compare byte for byte, as queue
    // names do (migration 5) and as on SQLite.
    batches: [
      table(
        'Schedules',
        `  name         nvarchar(64)   COLLATE ${NAME_COLLATION} NOT NULL,
  cron         nvarchar(200)  NOT NULL,
  timezone     nvarchar(64)   NOT NULL,
  kind         varchar(10)    NOT NULL,
  command      nvarchar(max)  NOT NULL,
  payload      nvarchar(max)  NULL,
  queue        nvarchar(64)   NOT NULL,
  priority     int            NOT NULL CONSTRAINT DF_Schedules_priority DEFAULT (0),
  max_attempts int            NULL,
  timeout_ms   int            NULL,
  enabled      bit            NOT NULL CONSTRAINT DF_Schedules_enabled DEFAULT (1),
  misfire      varchar(10)    NOT NULL CONSTRAINT DF_Schedules_misfire DEFAULT ('skip'),
  overlap      varchar(16)    NOT NULL CONSTRAINT DF_Schedules_overlap DEFAULT ('allow'),
  next_fire_at datetime2(3)   NULL,
  last_fire_at datetime2(3)   NULL,
  last_token   uniqueidentifier NULL,
  source       varchar(10)    NOT NULL,
  declared     bit            NOT NULL CONSTRAINT DF_Schedules_declared DEFAULT (1),
  version      int            NOT NULL CONSTRAINT DF_Schedules_version DEFAULT (1),
  created_by   nvarchar(200)  NOT NULL,
  created_at   datetime2(3)   NOT NULL,
  updated_by   nvarchar(200)  NOT NULL,
  updated_at   datetime2(3)   NOT NULL,
  CONSTRAINT PK_Schedules PRIMARY KEY CLUSTERED (name),
  CONSTRAINT CK_Schedules_misfire CHECK (misfire IN ('skip', 'run_once')),
  CONSTRAINT CK_Schedules_overlap CHECK (overlap IN ('allow', 'skip_if_running'))`,
      ),
      index('Schedules', 'IX_Schedules_due', 'CREATE INDEX IX_Schedules_due ON readpast.Schedules (next_fire_at) WHERE enabled = 1'),
      `IF COL_LENGTH(N'readpast.Tasks', N'schedule_name') IS NULL
  ALTER TABLE readpast.Tasks ADD schedule_name nvarchar(64) COLLATE ${NAME_COLLATION} NULL;`,
      `IF COL_LENGTH(N'readpast.Tasks', N'schedule_fire_at') IS NULL
  ALTER TABLE readpast.Tasks ADD schedule_fire_at datetime2(3) NULL;`,
      index(
        'Tasks',
        'UX_Tasks_schedule_fire',
        'CREATE UNIQUE INDEX UX_Tasks_schedule_fire ON readpast.Tasks (schedule_name, schedule_fire_at) WHERE schedule_fire_at IS NOT NULL',
      ),
      index(
        'Tasks',
        'IX_Tasks_schedule',
        'CREATE INDEX IX_Tasks_schedule ON readpast.Tasks (schedule_name, id) INCLUDE (token, status, schedule_fire_at, created_at) ' +
          'WHERE schedule_name IS NOT NULL',
      ),
    ],
  },
  {
    version: 5,
    name: 'names compare case-sensitively',
    // Queue names, dedup keys and handler names compared case-insensitively on a default SQL Server
    // database (its collation, often *_CI_AS) and byte for byte on SQLite: `Reports` and `reports` were one
    // queue here and two there. They now have a binary collation (NAME_COLLATION), whatever the database's
    // default, as SQLite's. A column's collation cannot change while an index, a key or statistics name it:
    // those are dropped, the column altered, and they are made again as before. Idempotent per table (its
    // guard: a column not yet binary). The index builds hold each table for their time.
    // Table variables compared with these columns must declare the same collation (a column of a table
    // variable takes the database's default, and two different implicit collations cannot be compared:
    // error 468); collation.test.ts checks every statement of sql/ for it. Which makes this an upgrade
    // to do with every process stopped: code from before it fails against the migrated schema (its table
    // variables take the default collation), and code from after it fails against a schema not yet migrated.
    batches: [
      ...NAME_TABLES.map(toBinaryCollation),
      ...NAME_TABLES.flatMap((t) => t.indexes.map((i) => index(t.table, i.name, i.definition))),
      // the view's metadata names the altered column of ExecutionLog
      `IF OBJECT_ID(N'readpast.ExecutionStatus', N'V') IS NOT NULL
  EXEC sys.sp_refreshview N'readpast.ExecutionStatus';`,
    ],
  },
  {
    version: 6,
    name: 'the T-SQL callers interface',
    // The seeds' own interface for T-SQL callers (sql/callers.ts): readpast.ExecAsync (in the caller's
    // transaction), GetScheduler, ReleaseScheduler, Synchronization, CancelTask, RetryTask, the view
    // AsyncExecResults, the role readpast_caller (EXECUTE on those, SELECT on the view; ownership chaining
    // does the rest), and the settings table whose allow_sql (off unless `readpast settings set allow-sql on`)
    // lets T-SQL callers enqueue sql tasks. The procedures never change a setting.
    batches: [
      table(
        'Settings',
        `  name       varchar(64)   COLLATE ${NAME_COLLATION} NOT NULL,
  value      nvarchar(400) NOT NULL,
  changed_at datetime2(3)  NOT NULL,
  changed_by nvarchar(200) NULL,
  CONSTRAINT PK_Settings PRIMARY KEY CLUSTERED (name)`,
      ),
      SEED_ALLOW_SQL,
      // the procedures are created from today's statements, whose tally bumps Metrics.dead (migration 8 adds it
      // to databases already past this one): an existing table's missing column would fail CREATE PROCEDURE
      METRICS_DEAD_COLUMN,
      // and Tasks' workflow columns (migration 20), which CancelTask and RetryTask now read and write
      ...WORKFLOW_COLUMNS,
      ...CALLER_PROCEDURES.map(createProcedure),
      ASYNC_EXEC_RESULTS_VIEW,
      ...roleBatches(),
    ],
  },
  // from 7 on each migration lives in versions/ (one file per migration)
  v7,
  v8,
  v9,
  v10,
  v11,
  v12,
  v13,
  v14,
  v15,
  v16,
  v17,
  v18,
  v19,
  v20,
  v22,
];

/** The highest schema version this code knows. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;
