// SQLite migration 3: running tasks by queue. A limited queue's room is its limit less its running tasks with a
// live lease (claim.ts); the partial index holds only running tasks, a handful, so each claim counts them with
// a seek.
// Frozen: released, this text never changes (db/sqlite/frozen-migrations.test.ts pins it); a fix is a new migration.
import type { SqliteMigration } from './migration';

export const migration: SqliteMigration = {
  version: 3,
  name: 'running tasks by queue',
  sql: `
CREATE INDEX IF NOT EXISTS Tasks_running ON Tasks(queue, lease_until) WHERE status = 'running';
`,
};
