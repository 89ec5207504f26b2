// SQLite migration 11: pool size per host and role. The size an operator set for a host's pool of one
// role (the dashboard's in-process pool is role `web`), applied when that pool starts again.
// Frozen: released, this text never changes (db/sqlite/frozen-migrations.test.ts pins it); a fix is a new migration.
import type { SqliteMigration } from './migration';

export const migration: SqliteMigration = {
  version: 11,
  name: 'pool size per host and role',
  sql: `
CREATE TABLE PoolSettings (
  host        TEXT NOT NULL,
  role        TEXT NOT NULL,
  size        INTEGER NOT NULL,
  updated_by  TEXT NOT NULL,
  updated_at  INTEGER NOT NULL,
  PRIMARY KEY (host, role)
) WITHOUT ROWID;
`,
};
