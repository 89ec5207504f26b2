// What one numbered migration of the SQL Server schema is (schema.ts lists them; versions/ holds one per file).
export interface Migration {
  version: number;
  name: string;
  /** each string is one batch (CREATE VIEW must be alone in its batch) */
  batches: readonly string[];
}
