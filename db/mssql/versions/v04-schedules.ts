// SQL Server migration 4: schedules. A fire is a task carrying (schedule_name, schedule_fire_at): the filtered
// unique index makes a second task for one tick impossible, however many processes fire (sql/schedules.ts). A
// manual run has no tick (schedule_fire_at NULL). The columns are added in batches of their own, before the
// indexes that name them are compiled. Schedule names compare byte for byte.
// Frozen: released, this text never changes (db/mssql/frozen-migrations.test.ts pins it); a fix is a new migration.
import type { Migration } from './migration';

export const migration: Migration = {
  version: 4,
  name: 'schedules',
  batches: [
    `IF OBJECT_ID(N'readpast.Schedules', N'U') IS NULL
CREATE TABLE readpast.Schedules (
  name         nvarchar(64)   COLLATE Latin1_General_100_BIN2 NOT NULL,
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
  CONSTRAINT CK_Schedules_overlap CHECK (overlap IN ('allow', 'skip_if_running'))
);`,
    `IF NOT EXISTS (SELECT 1 FROM sys.indexes
  WHERE object_id = OBJECT_ID(N'readpast.Schedules') AND name = N'IX_Schedules_due')
CREATE INDEX IX_Schedules_due ON readpast.Schedules (next_fire_at) WHERE enabled = 1;`,
    `IF COL_LENGTH(N'readpast.Tasks', N'schedule_name') IS NULL
  ALTER TABLE readpast.Tasks ADD schedule_name nvarchar(64) COLLATE Latin1_General_100_BIN2 NULL;`,
    `IF COL_LENGTH(N'readpast.Tasks', N'schedule_fire_at') IS NULL
  ALTER TABLE readpast.Tasks ADD schedule_fire_at datetime2(3) NULL;`,
    `IF NOT EXISTS (SELECT 1 FROM sys.indexes
  WHERE object_id = OBJECT_ID(N'readpast.Tasks') AND name = N'UX_Tasks_schedule_fire')
CREATE UNIQUE INDEX UX_Tasks_schedule_fire ON readpast.Tasks (schedule_name, schedule_fire_at) WHERE schedule_fire_at IS NOT NULL;`,
    `IF NOT EXISTS (SELECT 1 FROM sys.indexes
  WHERE object_id = OBJECT_ID(N'readpast.Tasks') AND name = N'IX_Tasks_schedule')
CREATE INDEX IX_Tasks_schedule ON readpast.Tasks (schedule_name, id) INCLUDE (token, status, schedule_fire_at, ` +
      `created_at) WHERE schedule_name IS NOT NULL;`,
  ],
};
