// SQL of the migration runner: the SchemaVersion table records each migration applied (schema.ts).

export const CREATE_SCHEMA_VERSION =
  'CREATE TABLE IF NOT EXISTS SchemaVersion (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)';

export const HAS_VERSION = 'SELECT 1 FROM SchemaVersion WHERE version = ?';

/** (version, name, applied_at) */
export const RECORD_VERSION = 'INSERT INTO SchemaVersion (version, name, applied_at) VALUES (?, ?, ?)';

/** The newest migration recorded (NULL: none). */
export const LATEST_VERSION = 'SELECT MAX(version) AS version FROM SchemaVersion';
