// SQL Server migration 16 installed the T-SQL callers' procedures again (ExecAsync counting @Payload in UTF-8
// bytes, dedup under an application lock). Procedures are installed by content now (code-objects.ts): it has
// nothing left to do, and stays so that every database records the same versions.
// Frozen: released, this text never changes (db/mssql/frozen-migrations.test.ts pins it); a fix is a new migration.
import type { Migration } from './migration';

export const migration: Migration = {
  version: 16,
  name: 'callers: payload in UTF-8 bytes, dedup under an application lock',
  batches: [],
};
