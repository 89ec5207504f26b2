// SQLite migration 11: pool size per host and role.
import type { SqliteMigration } from '../schema';

export const migration: SqliteMigration = {
  version: 11,
  name: 'pool size per host and role',
  sql: `
`,
};
