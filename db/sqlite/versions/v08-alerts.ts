// SQLite migration 8: alert rules and firings. A rule watches for dead tasks, old ready tasks, queues
// no worker serves, missed schedule ticks or a command's failure streak; a firing records what fired,
// with its delivery task (a task of the internal queue readpast.alerts). db/sqlite/alerts.ts
// Frozen: released, this text never changes (db/sqlite/frozen-migrations.test.ts pins it); a fix is a new migration.
import type { SqliteMigration } from './migration';

export const migration: SqliteMigration = {
  version: 8,
  name: 'alert rules and firings',
  sql: `
CREATE TABLE AlertRules (
  id         INTEGER PRIMARY KEY,
  name       TEXT NOT NULL,
  kind       TEXT NOT NULL,
  params     TEXT NOT NULL,
  url        TEXT NOT NULL,
  secret     TEXT,
  format     TEXT NOT NULL DEFAULT 'json',
  dedup_ms   INTEGER NOT NULL,
  enabled    INTEGER NOT NULL DEFAULT 1,
  cursor_at  INTEGER,
  cursor_id  INTEGER,
  created_by TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_by TEXT NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX AlertRules_name ON AlertRules(name);

CREATE TABLE AlertFirings (
  id         INTEGER PRIMARY KEY,
  rule_id    INTEGER,
  rule_name  TEXT NOT NULL,
  dedup_key  TEXT NOT NULL,
  fired_at   INTEGER NOT NULL,
  message    TEXT NOT NULL,
  task_token TEXT,
  status     TEXT NOT NULL,
  test       INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX AlertFirings_dedup ON AlertFirings(rule_id, dedup_key, fired_at);
CREATE INDEX AlertFirings_rule ON AlertFirings(rule_id, id);
CREATE INDEX AlertFirings_at ON AlertFirings(fired_at);

-- the dead tasks after a rule's cursor (only dead tasks are in it: no cost on the hot path)
CREATE INDEX IF NOT EXISTS Tasks_dead_at ON Tasks(finished_at, id) WHERE status = 'dead';
`,
};
