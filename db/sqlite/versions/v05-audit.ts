// SQLite migration 5: audit log. Every mutation from the dashboard, the API and the CLI (and the library,
// except its enqueues) appends one row: who, from where, what, on what, before → after, how many.
// The queue change history is read from here too (QueueChanges stays for rows written before).
import type { SqliteMigration } from '../schema';

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
`,
};
