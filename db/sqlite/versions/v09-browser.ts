// SQLite migration 9: task browser indexes.
import type { SqliteMigration } from '../schema';

export const migration: SqliteMigration = {
  version: 9,
  name: 'task browser indexes',
  sql: `
`,
};
