// SQLite migration 5: audit log. Every mutation from the dashboard, the API and the CLI (and the library,
// except its enqueues) appends one row: who, from where, what, on what, before → after, how many.
// The queue change history is read from here too (QueueChanges stays for rows written before).
// Frozen: released, this text never changes (db/sqlite/frozen-migrations.test.ts pins it); a fix is a new migration.
import type { SqliteMigration } from './migration';

export const migration: SqliteMigration = {
  version: 5,
  name: 'audit log',
  sql: `
CREATE TABLE AuditLog (
  id          INTEGER PRIMARY KEY,
  at          INTEGER NOT NULL,
  actor       TEXT NOT NULL,
  source      TEXT NOT NULL,
  action      TEXT NOT NULL,
  target      TEXT NOT NULL,
  before_json TEXT,
  after_json  TEXT,
  n           INTEGER
);
CREATE INDEX AuditLog_action ON AuditLog(action, id);
CREATE INDEX AuditLog_target ON AuditLog(target, id);
CREATE INDEX AuditLog_at ON AuditLog(at);
-- the queue change history so far, as audit rows (the history is read from here from now on)
INSERT INTO AuditLog (at, actor, source, action, target, before_json, after_json, n)
  SELECT at,
         CASE changed_by WHEN 'dashboard' THEN 'loopback' WHEN 'api' THEN 'loopback' ELSE changed_by END,
         CASE changed_by WHEN 'api' THEN 'api' WHEN 'cli' THEN 'cli' ELSE 'ui' END,
         'queue.update', queue,
         json_object(field, CASE WHEN field = 'paused' THEN json(CASE old_value WHEN 'true' THEN 'true' ELSE 'false' END)
                                 WHEN old_value = 'unlimited' THEN NULL ELSE CAST(old_value AS INTEGER) END),
         json_object(field, CASE WHEN field = 'paused' THEN json(CASE new_value WHEN 'true' THEN 'true' ELSE 'false' END)
                                 WHEN new_value = 'unlimited' THEN NULL ELSE CAST(new_value AS INTEGER) END),
         1
  FROM QueueChanges ORDER BY id;
`,
};
