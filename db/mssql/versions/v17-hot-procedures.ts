// SQL Server migration 17 installed the hot writes as procedures (readpast.Enqueue_v17, Claim_v17, Finish_v17,
// Heartbeat_v17). Procedures are installed by content now, under names derived from their text (sql/hot.ts,
// code-objects.ts), and retired when no worker has used them for the retention: it has nothing left to do.
// Frozen: released, this text never changes (db/mssql/frozen-migrations.test.ts pins it); a fix is a new migration.
import type { Migration } from './migration';

export const migration: Migration = {
  version: 17,
  name: 'hot writes as installed procedures',
  batches: [],
};
