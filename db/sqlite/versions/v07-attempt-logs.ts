// SQLite migration 7: attempt progress and log lines. AttemptOutput holds one row per attempt that reported
// anything (its latest progress, the last seq given, what is kept and what was dropped); AttemptLogs the
// kept lines, the last MAX_ATTEMPT_LINES / MAX_ATTEMPT_BYTES of the attempt (lib/engine/attempt-output.ts).
// Both go with their task (deleteTask, deleteFailed, prune).
// Frozen: released, this text never changes (db/sqlite/frozen-migrations.test.ts pins it); a fix is a new migration.
import type { SqliteMigration } from './migration';

export const migration: SqliteMigration = {
  version: 7,
  name: 'attempt progress and log lines',
  sql: `
CREATE TABLE AttemptOutput (
  task_id     INTEGER NOT NULL,
  attempt     INTEGER NOT NULL,
  last_seq    INTEGER NOT NULL DEFAULT 0,
  lines       INTEGER NOT NULL DEFAULT 0,
  bytes       INTEGER NOT NULL DEFAULT 0,
  dropped     INTEGER NOT NULL DEFAULT 0,
  percent     REAL,
  message     TEXT,
  progress_at INTEGER,
  updated_at  INTEGER NOT NULL,
  PRIMARY KEY (task_id, attempt)
) WITHOUT ROWID;

CREATE TABLE AttemptLogs (
  task_id INTEGER NOT NULL,
  attempt INTEGER NOT NULL,
  seq     INTEGER NOT NULL,
  at      INTEGER NOT NULL,
  stream  TEXT NOT NULL,
  line    TEXT NOT NULL,
  bytes   INTEGER NOT NULL,
  PRIMARY KEY (task_id, attempt, seq)
) WITHOUT ROWID;
`,
};
