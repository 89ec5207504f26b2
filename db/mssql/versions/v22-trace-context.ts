// SQL Server migration 22: OpenTelemetry trace context carried with a task (lib/engine/tracing.ts).
//  - Tasks.trace_parent, trace_state: the W3C context stored at enqueue (the `send` span's, the caller's, or
//    readpast.ExecAsync's @TraceParent); NULL: none. Tasks.attempt_trace: the traceparent of its last attempt's span,
//    written with the attempt's end; the next attempt links to it, and so does a flow child to its parents'.
//  - ExecutionLog.trace_parent: each attempt's own span (a retry is a trace of its own), shown on the task's page.
// Nullable columns with no default: added without touching a row. The enqueue, the claim and the finish that read
// and write them are code objects (sql/hot.ts: a changed body is a new name), installed after the migrations.
// Frozen once released: this text never changes (db/mssql/frozen-migrations.test.ts pins it); a fix is a new migration.
import type { Migration } from './migration';

export const migration: Migration = {
  version: 22,
  name: 'trace context',
  batches: [
    `IF COL_LENGTH(N'readpast.Tasks', N'trace_parent') IS NULL
  ALTER TABLE readpast.Tasks ADD trace_parent varchar(55) NULL;`,
    `IF COL_LENGTH(N'readpast.Tasks', N'trace_state') IS NULL
  ALTER TABLE readpast.Tasks ADD trace_state varchar(512) NULL;`,
    `IF COL_LENGTH(N'readpast.Tasks', N'attempt_trace') IS NULL
  ALTER TABLE readpast.Tasks ADD attempt_trace varchar(55) NULL;`,
    `IF COL_LENGTH(N'readpast.ExecutionLog', N'trace_parent') IS NULL
  ALTER TABLE readpast.ExecutionLog ADD trace_parent varchar(55) NULL;`,
  ],
};
