// SQLite migration 10: failure fingerprints.
import type { SqliteMigration } from '../schema';

export const migration: SqliteMigration = {
  version: 10,
  name: 'failure fingerprints',
  sql: `
`,
};
