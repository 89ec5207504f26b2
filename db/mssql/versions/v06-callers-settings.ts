// SQL Server migration 6: the settings of the T-SQL callers' interface and its role. readpast.Settings, whose
// allow_sql (off unless `readpast settings set allow-sql on`) lets T-SQL callers enqueue sql tasks, and the
// role readpast_caller. The callers' procedures (ExecAsync, GetScheduler, …), the view AsyncExecResults and the
// role's grants are code objects, installed by content after the migrations (code-objects.ts).
// Frozen: released, this text never changes (db/mssql/frozen-migrations.test.ts pins it); a fix is a new migration.
import type { Migration } from './migration';

export const migration: Migration = {
  version: 6,
  name: 'the T-SQL callers interface',
  batches: [
    `IF OBJECT_ID(N'readpast.Settings', N'U') IS NULL
CREATE TABLE readpast.Settings (
  name       varchar(64)   COLLATE Latin1_General_100_BIN2 NOT NULL,
  value      nvarchar(400) NOT NULL,
  changed_at datetime2(3)  NOT NULL,
  changed_by nvarchar(200) NULL,
  CONSTRAINT PK_Settings PRIMARY KEY CLUSTERED (name)
);`,
    `IF NOT EXISTS (SELECT 1 FROM readpast.Settings AS s WHERE s.name = 'allow_sql')
  INSERT INTO readpast.Settings (name, value, changed_at, changed_by)
    VALUES ('allow_sql', N'off', SYSUTCDATETIME(), N'migration 6');`,
    `IF DATABASE_PRINCIPAL_ID(N'readpast_caller') IS NULL
  CREATE ROLE readpast_caller AUTHORIZATION dbo;`,
  ],
};
