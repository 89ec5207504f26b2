// What one numbered migration of the SQLite schema is (schema.ts lists them; versions/ holds one per file).
export interface SqliteMigration {
  version: number;
  name: string;
  sql: string;
}
