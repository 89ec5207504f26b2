// SQL Server migration 13: pool size per host and role. The size an operator set for a host's pool of
// one role (the dashboard's in-process pool is role `web`), applied when that pool starts again.
// Frozen: released, this text never changes (db/mssql/frozen-migrations.test.ts pins it); a fix is a new migration.
import type { Migration } from './migration';

export const migration: Migration = {
  version: 13,
  name: 'pool size per host and role',
  batches: [
    `IF OBJECT_ID(N'readpast.PoolSettings', N'U') IS NULL
CREATE TABLE readpast.PoolSettings (
  host        nvarchar(256) NOT NULL,
  role        nvarchar(32)  NOT NULL,
  size        int           NOT NULL,
  updated_by  nvarchar(200) NOT NULL,
  updated_at  datetime2(3)  NOT NULL,
  CONSTRAINT PK_PoolSettings PRIMARY KEY CLUSTERED (host, role)
);`,
  ],
};
