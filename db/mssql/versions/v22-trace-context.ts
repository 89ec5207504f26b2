// SQL Server migration 22: OpenTelemetry trace context carried with a task (lib/engine/tracing.ts).
//  - Tasks.trace_parent, trace_state: the W3C context stored at enqueue (the `send` span's, the caller's, or
//    readpast.ExecAsync's @TraceParent); NULL: none. Tasks.attempt_trace: the traceparent of its last attempt's span,
//    written with the attempt's end; the next attempt links to it, and so does a flow child to its parents'.
//  - ExecutionLog.trace_parent: each attempt's own span (a retry is a trace of its own), shown on the task's page.
// Nullable columns with no default: added without touching a row. Then the enqueue, the claim and the finish under
// new names (Enqueue_v22 stores the context, Claim_v22 hands it back, Finish_v22 keeps the attempt's span) and the
// T-SQL callers again (ExecAsync takes @TraceParent). Enqueue_v20, Claim_v20 and Finish_v20 stay for processes not
// yet upgraded: they work as before and know nothing of traces.
import type { Migration } from './migration';
import { ASYNC_EXEC_RESULTS_VIEW, CALLER_PROCEDURES, createProcedure, roleBatches } from '../sql/callers';
import { createHotProcedure, HOT_PROCEDURES } from '../sql/hot';

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
    // the procedures of this version, installed from today's statements (sql/hot.ts, sql/callers.ts)
    ...HOT_PROCEDURES.filter((p) => p.version === 22).map(createHotProcedure),
    ...CALLER_PROCEDURES.map(createProcedure),
    ASYNC_EXEC_RESULTS_VIEW,
    ...roleBatches(),
  ],
};
