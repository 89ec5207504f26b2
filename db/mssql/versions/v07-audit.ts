// SQL Server migration 7: audit log. Every mutation from the dashboard, the API and the CLI (and the
// library, except its enqueues) appends one row: who, from where, what, on what, before → after, how many.
import { index, table } from '../ddl';
import type { Migration } from '../schema';

export const migration: Migration = {
  version: 7,
  name: 'audit log',
  batches: [
    table(
      'AuditLog',
      `  id          bigint IDENTITY(1,1) NOT NULL,
  at          datetime2(3)  NOT NULL,
  actor       nvarchar(200) NOT NULL,
  source      varchar(10)   NOT NULL,
  action      varchar(64)   NOT NULL,
  target      nvarchar(400) NOT NULL,
  before_json nvarchar(max) NULL,
  after_json  nvarchar(max) NULL,
  n           int           NULL,
  CONSTRAINT PK_AuditLog PRIMARY KEY CLUSTERED (id)`,
    ),
    index('AuditLog', 'IX_AuditLog_action', 'CREATE INDEX IX_AuditLog_action ON readpast.AuditLog (action, id)'),
    index('AuditLog', 'IX_AuditLog_target', 'CREATE INDEX IX_AuditLog_target ON readpast.AuditLog (target, id)'),
    index('AuditLog', 'IX_AuditLog_at', 'CREATE INDEX IX_AuditLog_at ON readpast.AuditLog (at)'),
  ],
};
