// SQLite migration 2: ExecutionStatus reads the open attempts first. CROSS JOIN fixes the join order: the
// partial index of open attempts (a handful of rows) drives the lookup of their tasks, instead of a scan of
// every task. (The view is a code object: the code-object step installs today's definition, code-objects.ts.)
// Frozen: released, this text never changes (db/sqlite/frozen-migrations.test.ts pins it); a fix is a new migration.
import type { SqliteMigration } from './migration';

export const migration: SqliteMigration = {
  version: 2,
  name: 'ExecutionStatus reads the open attempts first',
  sql: `
DROP VIEW ExecutionStatus;
CREATE VIEW ExecutionStatus AS
  SELECT l.id AS log_id, l.task_id, t.token, l.queue, l.kind, l.command, l.attempt, t.max_attempts,
         l.worker_id, l.session, l.token_no, l.batch_id, l.stage, l.started_at, t.lease_until, t.cancel_requested
  FROM ExecutionLog l CROSS JOIN Tasks t ON t.id = l.task_id
  WHERE l.ended_at IS NULL AND t.status = 'running' AND t.attempts = l.attempt;
`,
};
