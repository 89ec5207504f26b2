// SQL of `readpast doctor` on SQLite (../doctor.ts): reads only, and a write lock taken and given back.

export const SQLITE_VERSION = 'SELECT sqlite_version() AS version';

/** Reading it makes SQLite read the file's header: a file that is not a database fails here. */
export const SCHEMA_COOKIE = 'PRAGMA schema_version';

export const JOURNAL_MODE = 'PRAGMA journal_mode';

export const HAS_SCHEMA_VERSION = "SELECT 1 AS present FROM sqlite_master WHERE type = 'table' AND name = 'SchemaVersion'";

export const SCHEMA_VERSIONS = 'SELECT version FROM SchemaVersion ORDER BY version';

/** The single writer's lock, as every write transaction takes it; released by ROLLBACK. */
export const BEGIN_IMMEDIATE = 'BEGIN IMMEDIATE';
export const ROLLBACK = 'ROLLBACK';
