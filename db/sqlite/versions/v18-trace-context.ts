// SQLite migration 18: OpenTelemetry trace context carried with a task (lib/engine/tracing.ts).
//  - Tasks.trace_parent, trace_state: the W3C context stored at enqueue (the `send` span's, or the caller's); NULL: none.
//  - Tasks.attempt_trace: the traceparent of its last attempt's span, written with the attempt's end; the next attempt
//    links to it, and so does a flow child to its parents'.
//  - ExecutionLog.trace_parent: each attempt's own span (a retry is a trace of its own), shown on the task's page.
import type { SqliteMigration } from './migration';

export const migration: SqliteMigration = {
  version: 18,
  name: 'trace context',
  sql: `
ALTER TABLE Tasks ADD COLUMN trace_parent TEXT;
ALTER TABLE Tasks ADD COLUMN trace_state TEXT;
ALTER TABLE Tasks ADD COLUMN attempt_trace TEXT;
ALTER TABLE ExecutionLog ADD COLUMN trace_parent TEXT;
`,
};
