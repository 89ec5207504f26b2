// SQLite migration 6: per-minute history.
import type { SqliteMigration } from '../schema';

export const migration: SqliteMigration = {
  version: 6,
  name: 'per-minute history',
  sql: `
`,
};
