// SQL Server migration 12: failure fingerprints. A failed attempt stores on its task the fingerprint of its
// error (lib/engine/fingerprint.ts: error number + normalised message); the Failed & poison page groups
// dead tasks by (fingerprint, command, queue) over the index below. Rows settled before this migration
// (or made dead by a lease rescue) have none: reads fingerprint them on first sight (db/mssql/failures.ts).
// Frozen: released, this text never changes (db/mssql/frozen-migrations.test.ts pins it); a fix is a new migration.
import type { Migration } from './migration';

export const migration: Migration = {
  version: 12,
  name: 'failure fingerprints',
  batches: [
    `IF COL_LENGTH(N'readpast.Tasks', N'fingerprint') IS NULL
ALTER TABLE readpast.Tasks ADD fingerprint char(16) NULL;`,
    `IF NOT EXISTS (SELECT 1 FROM sys.indexes
  WHERE object_id = OBJECT_ID(N'readpast.Tasks') AND name = N'IX_Tasks_dead_fingerprint')
CREATE INDEX IX_Tasks_dead_fingerprint ON readpast.Tasks (fingerprint, queue) INCLUDE (command, error_number, ` +
      `finished_at) WHERE status = 'dead';`,
  ],
};
