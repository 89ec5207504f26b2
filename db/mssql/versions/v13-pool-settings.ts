// SQL Server migration 13: pool size per host and role. The size an operator set for a host's pool of
// one role (the dashboard's in-process pool is role `web`), applied when that pool starts again.
import { table } from '../ddl';
import type { Migration } from './migration';

export const migration: Migration = {
  version: 13,
  name: 'pool size per host and role',
  batches: [
    table(
      'PoolSettings',
      `  host        nvarchar(256) NOT NULL,
  role        nvarchar(32)  NOT NULL,
  size        int           NOT NULL,
  updated_by  nvarchar(200) NOT NULL,
  updated_at  datetime2(3)  NOT NULL,
  CONSTRAINT PK_PoolSettings PRIMARY KEY CLUSTERED (host, role)`,
    ),
  ],
};
