// SQLite migration 12: the queues a worker claims from. A worker started with `--queues a,b` records them,
// so that "why isn't it running?", the Overview's warning and the no_worker alert know which queues have a
// live worker that serves them (NULL: every queue).
// Frozen: released, this text never changes (db/sqlite/frozen-migrations.test.ts pins it); a fix is a new migration.
import type { SqliteMigration } from './migration';

export const migration: SqliteMigration = {
  version: 12,
  name: 'worker queues',
  sql: `
ALTER TABLE Workers ADD COLUMN queues TEXT;
`,
};
