// SQLite migration 19: durable handlers (lib/engine/types/durable.ts has the rules).
//  - Tasks gain `suspended` ('sleep' | 'event': why a waiting task's handler suspended it; NULL otherwise) and
//    `suspensions` (its attempts that ended suspended: not failures). Tasks_suspended holds the suspended tasks by
//    the time they wake (a sleep's end, an event wait's timeout), for the wake-up each second and the tabs.
//  - TaskSteps: one row per recorded step of a task (task_id, seq), replaced while it fails; an event wait's event
//    and match; the event that resumed it (TaskSteps_event: an event's resumed tasks). TaskSteps_waiting: the steps
//    suspended on an event, by its name (what a sent event looks up).
//  - Events: every event sent, kept with the tasks' retention; by name and time (a suspending task looks for one
//    sent since its attempt began) and by time (pruning).
// Frozen: released, this text never changes (db/sqlite/frozen-migrations.test.ts pins it); a fix is a new migration.
import type { SqliteMigration } from './migration';

export const migration: SqliteMigration = {
  version: 19,
  name: 'durable handlers',
  sql: `
ALTER TABLE Tasks ADD COLUMN suspended TEXT;
ALTER TABLE Tasks ADD COLUMN suspensions INTEGER NOT NULL DEFAULT 0;
CREATE INDEX Tasks_suspended ON Tasks(run_after, id) WHERE status = 'waiting' AND suspended IS NOT NULL;

CREATE TABLE TaskSteps (
  id            INTEGER PRIMARY KEY,
  task_id       INTEGER NOT NULL,
  seq           INTEGER NOT NULL,
  name          TEXT NOT NULL,
  kind          TEXT NOT NULL,
  status        TEXT NOT NULL,
  attempt       INTEGER NOT NULL,
  tries         INTEGER NOT NULL DEFAULT 1,
  started_at    INTEGER NOT NULL,
  ended_at      INTEGER,
  result        TEXT,
  error_number  INTEGER,
  error_message TEXT,
  error_detail  TEXT,
  wake_at       INTEGER,
  event         TEXT,
  event_match   TEXT,
  event_id      INTEGER
);
CREATE UNIQUE INDEX TaskSteps_task ON TaskSteps(task_id, seq);
CREATE INDEX TaskSteps_waiting ON TaskSteps(event, task_id) WHERE status = 'waiting';
CREATE INDEX TaskSteps_event ON TaskSteps(event_id) WHERE event_id IS NOT NULL;

CREATE TABLE Events (
  id      INTEGER PRIMARY KEY,
  name    TEXT NOT NULL,
  payload TEXT,
  sent_at INTEGER NOT NULL,
  caller  TEXT,
  resumed INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX Events_name ON Events(name, sent_at);
CREATE INDEX Events_sent ON Events(sent_at);
`,
};
