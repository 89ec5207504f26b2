// SQLite migration 17: Tasks_flow made again on flow_id alone. Migration 15 made it on (flow_id, status) when
// it was first released and on flow_id alone after it was changed (a status change no longer rewrites it); a
// file migrated between the two still has the first. Made again here, the same in every file (a partial
// index over the tasks of flows: a short rebuild).
// Frozen: released, this text never changes (db/sqlite/frozen-migrations.test.ts pins it); a fix is a new migration.
import type { SqliteMigration } from './migration';

export const migration: SqliteMigration = {
  version: 17,
  name: 'Tasks_flow on flow_id alone',
  sql: `
DROP INDEX IF EXISTS Tasks_flow;
CREATE INDEX Tasks_flow ON Tasks(flow_id) WHERE flow_id IS NOT NULL;
`,
};
