// SQLite migration 10: failure fingerprints. A failed attempt stores on its task the fingerprint of its
// error (lib/engine/fingerprint.ts: error number + normalised message); the Failed & poison page groups
// dead tasks by (fingerprint, command, queue) over the index below. Rows settled before this migration
// (or made dead by a lease rescue) have none: reads fingerprint them on first sight (db/sqlite/failures.ts).
// Frozen: released, this text never changes (db/sqlite/frozen-migrations.test.ts pins it); a fix is a new migration.
import type { SqliteMigration } from './migration';

export const migration: SqliteMigration = {
  version: 10,
  name: 'failure fingerprints',
  sql: `
ALTER TABLE Tasks ADD COLUMN fingerprint TEXT;
CREATE INDEX Tasks_dead_fingerprint ON Tasks(fingerprint, command, queue, finished_at) WHERE status = 'dead';
`,
};
