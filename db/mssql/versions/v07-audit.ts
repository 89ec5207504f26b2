// SQL Server migration 7: audit log. Every mutation from the dashboard, the API and the CLI (and the
// library, except its enqueues) appends one row: who, from where, what, on what, before → after, how many.
// Frozen: released, this text never changes (db/mssql/frozen-migrations.test.ts pins it); a fix is a new migration.
import type { Migration } from './migration';

export const migration: Migration = {
  version: 7,
  name: 'audit log',
  batches: [
    `IF OBJECT_ID(N'readpast.AuditLog', N'U') IS NULL
CREATE TABLE readpast.AuditLog (
  id          bigint IDENTITY(1,1) NOT NULL,
  at          datetime2(3)  NOT NULL,
  actor       nvarchar(200) NOT NULL,
  source      varchar(10)   NOT NULL,
  action      varchar(64)   NOT NULL,
  target      nvarchar(400) COLLATE Latin1_General_100_BIN2 NOT NULL,
  before_json nvarchar(max) NULL,
  after_json  nvarchar(max) NULL,
  n           int           NULL,
  CONSTRAINT PK_AuditLog PRIMARY KEY CLUSTERED (id)
);`,
    `IF NOT EXISTS (SELECT 1 FROM sys.indexes
  WHERE object_id = OBJECT_ID(N'readpast.AuditLog') AND name = N'IX_AuditLog_action')
CREATE INDEX IX_AuditLog_action ON readpast.AuditLog (action, id);`,
    `IF NOT EXISTS (SELECT 1 FROM sys.indexes
  WHERE object_id = OBJECT_ID(N'readpast.AuditLog') AND name = N'IX_AuditLog_target')
CREATE INDEX IX_AuditLog_target ON readpast.AuditLog (target, id);`,
    `IF NOT EXISTS (SELECT 1 FROM sys.indexes
  WHERE object_id = OBJECT_ID(N'readpast.AuditLog') AND name = N'IX_AuditLog_at')
CREATE INDEX IX_AuditLog_at ON readpast.AuditLog (at);`,
    `IF NOT EXISTS (SELECT 1 FROM readpast.AuditLog AS a WHERE a.action = 'queue.update')
INSERT INTO readpast.AuditLog (at, actor, source, action, target, before_json, after_json, n)
  SELECT c.at,
         CASE c.changed_by WHEN 'dashboard' THEN N'loopback' WHEN 'api' THEN N'loopback' ELSE c.changed_by END,
         CASE c.changed_by WHEN 'api' THEN 'api' WHEN 'cli' THEN 'cli' ELSE 'ui' END,
         'queue.update', c.queue,
         CASE c.field WHEN 'paused' THEN N'{"paused":' + CASE c.old_value WHEN 'true' THEN N'true' ELSE N'false' END + N'}'
           ELSE N'{"concurrencyLimit":' + CASE c.old_value WHEN 'unlimited' THEN N'null' ELSE c.old_value END + N'}' END,
         CASE c.field WHEN 'paused' THEN N'{"paused":' + CASE c.new_value WHEN 'true' THEN N'true' ELSE N'false' END + N'}'
           ELSE N'{"concurrencyLimit":' + CASE c.new_value WHEN 'unlimited' THEN N'null' ELSE c.new_value END + N'}' END,
         1
  FROM readpast.QueueChanges AS c
  ORDER BY c.id;`,
  ],
};
