// SQL Server migration 15: why an abandoned attempt was abandoned. The rescue of an expired lease records
// `lease_lost` when the attempt's worker was heard from at or after the lease's end (alive, its heartbeats
// too late to renew it) and `worker_lost` when it was not (crashed, killed or cut off); the dashboard shows
// the two apart and /metrics counts them.
// Frozen: released, this text never changes (db/mssql/frozen-migrations.test.ts pins it); a fix is a new migration.
import type { Migration } from './migration';

export const migration: Migration = {
  version: 15,
  name: 'abandon reason',
  batches: [
    `IF COL_LENGTH(N'readpast.ExecutionLog', N'abandon_reason') IS NULL
ALTER TABLE readpast.ExecutionLog ADD abandon_reason varchar(12) NULL;`,
  ],
};
