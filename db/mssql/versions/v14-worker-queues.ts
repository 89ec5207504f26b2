// SQL Server migration 14: the queues a worker claims from. A worker started with `--queues a,b` records
// them (a JSON array; NULL: every queue), so that "why isn't it running?", the Overview's warning and the
// no_worker alert know which queues have a live worker that serves them.
// Frozen: released, this text never changes (db/mssql/frozen-migrations.test.ts pins it); a fix is a new migration.
import type { Migration } from './migration';

export const migration: Migration = {
  version: 14,
  name: 'worker queues',
  batches: [
    `IF COL_LENGTH(N'readpast.Workers', N'queues') IS NULL
ALTER TABLE readpast.Workers ADD queues nvarchar(max) NULL;`,
  ],
};
