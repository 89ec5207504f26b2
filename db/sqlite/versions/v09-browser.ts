// SQLite migration 9: task browser indexes.
//  - Tasks_open: the pending and running tabs, newest first (dead and cancelled have Tasks_ended; succeeded
//    tasks are most of the table and are read newest first on the primary key).
//  - Tasks_pending_run: pending tasks by queue and run-at — the scheduled/retrying counts, the next run-at
//    and the longest-due ready task of ReadModel.pendingBreakdown are range reads and seeks on it (ready
//    is the kept pending count less those).
// Frozen: released, this text never changes (db/sqlite/frozen-migrations.test.ts pins it); a fix is a new migration.
import type { SqliteMigration } from './migration';

export const migration: SqliteMigration = {
  version: 9,
  name: 'task browser indexes',
  sql: `
CREATE INDEX IF NOT EXISTS Tasks_open ON Tasks(status, id) WHERE status IN ('pending', 'running');
CREATE INDEX IF NOT EXISTS Tasks_pending_run ON Tasks(queue, run_after, attempts) WHERE status = 'pending';
`,
};
