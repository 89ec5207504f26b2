// SQL Server migration 10: alert rules and firings. A rule watches for dead tasks, old ready tasks,
// queues no worker serves, missed schedule ticks or a command's failure streak; a firing records what
// fired with its delivery task (a task of the internal queue readpast.alerts). db/mssql/alerts.ts
// Frozen: released, this text never changes (db/mssql/frozen-migrations.test.ts pins it); a fix is a new migration.
import type { Migration } from './migration';

export const migration: Migration = {
  version: 10,
  name: 'alert rules and firings',
  batches: [
    `IF OBJECT_ID(N'readpast.AlertRules', N'U') IS NULL
CREATE TABLE readpast.AlertRules (
  id         int IDENTITY(1,1) NOT NULL,
  name       nvarchar(64)   COLLATE Latin1_General_100_BIN2 NOT NULL,
  kind       varchar(20)    NOT NULL,
  params     nvarchar(4000) NOT NULL,
  url        nvarchar(2000) NOT NULL,
  secret     nvarchar(400)  NULL,
  format     varchar(10)    NOT NULL,
  dedup_ms   int            NOT NULL,
  enabled    bit            NOT NULL,
  cursor_at  datetime2(3)   NULL,
  cursor_id  bigint         NULL,
  created_by nvarchar(200)  NOT NULL,
  created_at datetime2(3)   NOT NULL,
  updated_by nvarchar(200)  NOT NULL,
  updated_at datetime2(3)   NOT NULL,
  CONSTRAINT PK_AlertRules PRIMARY KEY CLUSTERED (id),
  CONSTRAINT UX_AlertRules_name UNIQUE (name)
);`,
    `IF OBJECT_ID(N'readpast.AlertFirings', N'U') IS NULL
CREATE TABLE readpast.AlertFirings (
  id         bigint IDENTITY(1,1) NOT NULL,
  rule_id    int            NULL,
  rule_name  nvarchar(64)   NOT NULL,
  dedup_key  nvarchar(400)  COLLATE Latin1_General_100_BIN2 NOT NULL,
  fired_at   datetime2(3)   NOT NULL,
  message    nvarchar(2000) NOT NULL,
  task_token uniqueidentifier NULL,
  status     varchar(20)    NOT NULL,
  test       bit            NOT NULL,
  CONSTRAINT PK_AlertFirings PRIMARY KEY CLUSTERED (id)
);`,
    `IF NOT EXISTS (SELECT 1 FROM sys.indexes
  WHERE object_id = OBJECT_ID(N'readpast.AlertFirings') AND name = N'IX_AlertFirings_dedup')
CREATE INDEX IX_AlertFirings_dedup ON readpast.AlertFirings (rule_id, dedup_key, fired_at);`,
    `IF NOT EXISTS (SELECT 1 FROM sys.indexes
  WHERE object_id = OBJECT_ID(N'readpast.AlertFirings') AND name = N'IX_AlertFirings_rule')
CREATE INDEX IX_AlertFirings_rule ON readpast.AlertFirings (rule_id, id);`,
    `IF NOT EXISTS (SELECT 1 FROM sys.indexes
  WHERE object_id = OBJECT_ID(N'readpast.AlertFirings') AND name = N'IX_AlertFirings_at')
CREATE INDEX IX_AlertFirings_at ON readpast.AlertFirings (fired_at);`,
  ],
};
