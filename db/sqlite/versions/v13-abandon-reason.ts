// SQLite migration 13: why an abandoned attempt was abandoned. The rescue of an expired lease records
// `lease_lost` when the attempt's worker was heard from at or after the lease's end (alive, its heartbeats
// too late to renew it) and `worker_lost` when it was not (crashed, killed or cut off); the dashboard shows
// the two apart and /metrics counts them.
// Frozen: released, this text never changes (db/sqlite/frozen-migrations.test.ts pins it); a fix is a new migration.
import type { SqliteMigration } from './migration';

export const migration: SqliteMigration = {
  version: 13,
  name: 'abandon reason',
  sql: `
ALTER TABLE ExecutionLog ADD COLUMN abandon_reason TEXT;
`,
};
