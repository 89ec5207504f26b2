// SQLite migration 20: the intake, where a plain task enqueued alone is appended (db/sqlite/intake.ts).
//  - Intake: one row per task not yet in Tasks, with the columns its Tasks row is made of, already resolved at
//    enqueue (queue defaults, the concurrency key from keyFrom). No index but its rowid: an append writes one page.
//    The next write transaction of any process (a claim, a heartbeat, a command) or a read of this store moves
//    every row into Tasks first, in id order, and counts them there.
// Frozen: released, this text never changes (db/sqlite/frozen-migrations.test.ts pins it); a fix is a new migration.
import type { SqliteMigration } from './migration';

export const migration: SqliteMigration = {
  version: 20,
  name: 'intake',
  sql: `
CREATE TABLE Intake (
  id               INTEGER PRIMARY KEY,
  token            TEXT NOT NULL,
  queue            TEXT NOT NULL,
  kind             TEXT NOT NULL,
  command          TEXT NOT NULL,
  payload          TEXT,
  priority         INTEGER NOT NULL,
  run_after        INTEGER NOT NULL,
  max_attempts     INTEGER NOT NULL,
  timeout_ms       INTEGER,
  concurrency_key  TEXT,
  caller           TEXT,
  created_at       INTEGER NOT NULL,
  trace_parent     TEXT,
  trace_state      TEXT
);
`,
};
