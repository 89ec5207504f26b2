// SQL Server migration 9: attempt progress and log lines. AttemptOutput holds one row per attempt that
// reported anything (its latest progress, the last seq given, what is kept and what was dropped);
// AttemptLogs the kept lines, the last MAX_ATTEMPT_LINES / MAX_ATTEMPT_BYTES of the attempt
// (lib/engine/attempt-output.ts). Both go with their task (sql/attempt-logs.ts DELETE_TASKS_OUTPUT).
// Frozen: released, this text never changes (db/mssql/frozen-migrations.test.ts pins it); a fix is a new migration.
import type { Migration } from './migration';

export const migration: Migration = {
  version: 9,
  name: 'attempt progress and log lines',
  batches: [
    `IF OBJECT_ID(N'readpast.AttemptOutput', N'U') IS NULL
CREATE TABLE readpast.AttemptOutput (
  task_id     bigint        NOT NULL,
  attempt     int           NOT NULL,
  last_seq    int           NOT NULL CONSTRAINT DF_AttemptOutput_last_seq DEFAULT (0),
  lines       int           NOT NULL CONSTRAINT DF_AttemptOutput_lines DEFAULT (0),
  bytes       int           NOT NULL CONSTRAINT DF_AttemptOutput_bytes DEFAULT (0),
  dropped     int           NOT NULL CONSTRAINT DF_AttemptOutput_dropped DEFAULT (0),
  pct         decimal(4,1)  NULL,
  message     nvarchar(400) NULL,
  progress_at datetime2(3)  NULL,
  updated_at  datetime2(3)  NOT NULL,
  CONSTRAINT PK_AttemptOutput PRIMARY KEY CLUSTERED (task_id, attempt)
);`,
    `IF OBJECT_ID(N'readpast.AttemptLogs', N'U') IS NULL
CREATE TABLE readpast.AttemptLogs (
  task_id bigint         NOT NULL,
  attempt int            NOT NULL,
  seq     int            NOT NULL,
  at      datetime2(3)   NOT NULL,
  stream  varchar(5)     NOT NULL,
  line    nvarchar(4000) NOT NULL,
  bytes   int            NOT NULL,
  CONSTRAINT PK_AttemptLogs PRIMARY KEY CLUSTERED (task_id, attempt, seq)
);`,
  ],
};
