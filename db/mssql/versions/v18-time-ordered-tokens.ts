// SQL Server migration 18 installed the T-SQL callers' procedures again (ExecAsync making its token as the
// store does, sql/tokens.ts). Procedures are installed by content now (code-objects.ts): it has nothing left
// to do.
// Frozen: released, this text never changes (db/mssql/frozen-migrations.test.ts pins it); a fix is a new migration.
import type { Migration } from './migration';

export const migration: Migration = {
  version: 18,
  name: 'callers: time-ordered task tokens',
  batches: [],
};
