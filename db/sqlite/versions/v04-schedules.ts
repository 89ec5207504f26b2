// SQLite migration 4: schedules. Recurring tasks; a fire is a task carrying (schedule_name, schedule_fire_at),
// unique per tick (a manual run has no tick: schedule_fire_at NULL). db/sqlite/schedules.ts
// Frozen: released, this text never changes (db/sqlite/frozen-migrations.test.ts pins it); a fix is a new migration.
import type { SqliteMigration } from './migration';

export const migration: SqliteMigration = {
  version: 4,
  name: 'schedules',
  sql: `
CREATE TABLE Schedules (
  name         TEXT PRIMARY KEY,
  cron         TEXT NOT NULL,
  timezone     TEXT NOT NULL,
  kind         TEXT NOT NULL,
  command      TEXT NOT NULL,
  payload      TEXT,
  queue        TEXT NOT NULL,
  priority     INTEGER NOT NULL DEFAULT 0,
  max_attempts INTEGER,
  timeout_ms   INTEGER,
  enabled      INTEGER NOT NULL DEFAULT 1,
  misfire      TEXT NOT NULL DEFAULT 'skip',
  overlap      TEXT NOT NULL DEFAULT 'allow',
  next_fire_at INTEGER,
  last_fire_at INTEGER,
  last_token   TEXT,
  source       TEXT NOT NULL,
  declared     INTEGER NOT NULL DEFAULT 1,
  version      INTEGER NOT NULL DEFAULT 1,
  created_by   TEXT NOT NULL,
  created_at   INTEGER NOT NULL,
  updated_by   TEXT NOT NULL,
  updated_at   INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX Schedules_due ON Schedules(next_fire_at) WHERE enabled = 1;
ALTER TABLE Tasks ADD COLUMN schedule_name TEXT;
ALTER TABLE Tasks ADD COLUMN schedule_fire_at INTEGER;
CREATE UNIQUE INDEX Tasks_schedule_fire ON Tasks(schedule_name, schedule_fire_at) WHERE schedule_fire_at IS NOT NULL;
CREATE INDEX Tasks_schedule ON Tasks(schedule_name, id) WHERE schedule_name IS NOT NULL;
`,
};
