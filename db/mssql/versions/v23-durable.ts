// SQL Server migration 23: durable handlers (lib/engine/types/durable.ts has the rules), as SQLite's migration 19.
//  - Tasks gain `suspended` ('sleep' | 'event': why a waiting task's handler suspended it; NULL otherwise) and
//    `suspensions` (its attempts that ended suspended: not failures; NULL reads as 0). Nullable, no default: added
//    without touching a row. IX_Tasks_suspended holds the suspended tasks by the time they wake (a sleep's end, an
//    event wait's timeout), for the wake-up each second and the tabs.
//  - TaskSteps: one row per recorded step of a task, clustered on (task_id, seq), replaced while it fails; an event
//    wait's event and match; the event that resumed it (IX_TaskSteps_event: an event's resumed tasks).
//    IX_TaskSteps_waiting: the steps suspended on an event, by its name (what a sent event looks up).
//  - Events: every event sent, kept with the tasks' retention; by name and time (a suspending task looks for one
//    sent since its attempt began) and by time (pruning).
// Frozen: released, this text never changes (db/mssql/frozen-migrations.test.ts pins it); a fix is a new migration.
import type { Migration } from './migration';

export const migration: Migration = {
  version: 23,
  name: 'durable handlers',
  batches: [
    `IF COL_LENGTH(N'readpast.Tasks', N'suspended') IS NULL
  ALTER TABLE readpast.Tasks ADD suspended varchar(5) NULL;`,
    `IF COL_LENGTH(N'readpast.Tasks', N'suspensions') IS NULL
  ALTER TABLE readpast.Tasks ADD suspensions int NULL;`,
    `IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE object_id = OBJECT_ID(N'readpast.Tasks') AND name = N'IX_Tasks_suspended')
CREATE INDEX IX_Tasks_suspended ON readpast.Tasks (run_after, id) INCLUDE (queue, suspended)
  WHERE status = 'waiting' AND suspended IS NOT NULL;`,
    `IF OBJECT_ID(N'readpast.TaskSteps', N'U') IS NULL
CREATE TABLE readpast.TaskSteps (
  task_id       bigint         NOT NULL,
  seq           int            NOT NULL,
  name          nvarchar(200)  COLLATE Latin1_General_100_BIN2 NOT NULL,
  kind          varchar(12)    NOT NULL,
  status        varchar(10)    NOT NULL,
  attempt       int            NOT NULL,
  tries         int            NOT NULL CONSTRAINT DF_TaskSteps_tries DEFAULT 1,
  started_at    datetime2(3)   NOT NULL,
  ended_at      datetime2(3)   NULL,
  result        nvarchar(max)  NULL,
  error_number  int            NULL,
  error_message nvarchar(4000) NULL,
  error_detail  nvarchar(max)  NULL,
  wake_at       datetime2(3)   NULL,
  event         nvarchar(200)  COLLATE Latin1_General_100_BIN2 NULL,
  event_match   nvarchar(max)  NULL,
  event_id      bigint         NULL,
  CONSTRAINT PK_TaskSteps PRIMARY KEY CLUSTERED (task_id, seq),
  CONSTRAINT CK_TaskSteps_kind CHECK (kind IN ('step', 'transaction', 'sleep', 'event')),
  CONSTRAINT CK_TaskSteps_status CHECK (status IN ('succeeded', 'failed', 'sleeping', 'waiting'))
);`,
    `IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE object_id = OBJECT_ID(N'readpast.TaskSteps') AND name = N'IX_TaskSteps_waiting')
CREATE INDEX IX_TaskSteps_waiting ON readpast.TaskSteps (event, task_id) WHERE status = 'waiting';`,
    `IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE object_id = OBJECT_ID(N'readpast.TaskSteps') AND name = N'IX_TaskSteps_event')
CREATE INDEX IX_TaskSteps_event ON readpast.TaskSteps (event_id) WHERE event_id IS NOT NULL;`,
    `IF OBJECT_ID(N'readpast.Events', N'U') IS NULL
CREATE TABLE readpast.Events (
  id      bigint IDENTITY(1, 1) NOT NULL,
  name    nvarchar(200)  COLLATE Latin1_General_100_BIN2 NOT NULL,
  payload nvarchar(max)  NULL,
  sent_at datetime2(3)   NOT NULL,
  caller  nvarchar(200)  NULL,
  resumed int            NOT NULL CONSTRAINT DF_Events_resumed DEFAULT 0,
  CONSTRAINT PK_Events PRIMARY KEY CLUSTERED (id)
);`,
    `IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE object_id = OBJECT_ID(N'readpast.Events') AND name = N'IX_Events_name')
CREATE INDEX IX_Events_name ON readpast.Events (name, sent_at);`,
    `IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE object_id = OBJECT_ID(N'readpast.Events') AND name = N'IX_Events_sent')
CREATE INDEX IX_Events_sent ON readpast.Events (sent_at);`,
  ],
};
