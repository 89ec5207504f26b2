// SQLite migration 8: alert rules and firings.
import type { SqliteMigration } from '../schema';

export const migration: SqliteMigration = {
  version: 8,
  name: 'alert rules and firings',
  sql: `
`,
};
