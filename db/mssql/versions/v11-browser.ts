// SQL Server migration 11: task browser indexes.
//  - IX_Tasks_open: the pending and running tabs, newest first (dead and cancelled have IX_Tasks_ended;
//    succeeded tasks are most of the table and are read newest first on the clustered key).
//  - IX_Tasks_pending_run: pending tasks by queue and run-at — the scheduled/retrying counts, the next
//    run-at and the longest-due ready task of ReadModel.pendingBreakdown are range reads and seeks on it
//    (ready is the kept pending count less those).
// Frozen: released, this text never changes (db/mssql/frozen-migrations.test.ts pins it); a fix is a new migration.
import type { Migration } from './migration';

export const migration: Migration = {
  version: 11,
  name: 'task browser indexes',
  batches: [
    `IF NOT EXISTS (SELECT 1 FROM sys.indexes
  WHERE object_id = OBJECT_ID(N'readpast.Tasks') AND name = N'IX_Tasks_open')
CREATE INDEX IX_Tasks_open ON readpast.Tasks (status, id) WHERE status IN ('pending', 'running');`,
    `IF NOT EXISTS (SELECT 1 FROM sys.indexes
  WHERE object_id = OBJECT_ID(N'readpast.Tasks') AND name = N'IX_Tasks_pending_run')
CREATE INDEX IX_Tasks_pending_run ON readpast.Tasks (queue, run_after) INCLUDE (attempts, created_at) WHERE status = 'pending';`,
  ],
};
