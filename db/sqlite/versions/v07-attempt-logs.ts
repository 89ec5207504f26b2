// SQLite migration 7: attempt progress and log lines.
import type { SqliteMigration } from '../schema';

export const migration: SqliteMigration = {
  version: 7,
  name: 'attempt progress and log lines',
  sql: `
`,
};
