// SQLite migration 15: workflows — tasks that wait for other tasks (lib/engine/types/flows.ts has the rules).
//  - Tasks gain flow_id / flow_node (the flow and node id a task belongs to), parent_count and parents_left (its
//    edges, and those not yet done: a counter kept with the edges) and blocked_by (the parent whose failure
//    cancelled it, so a retry of that parent re-arms it). A task with parents_left > 0 is 'waiting'.
//  - TaskEdges: one row per dependency; done = 1 once the parent succeeded (or failed under policy 'run').
//    Keyed parent first (a settle walks a parent's children); TaskEdges_child walks a child's parents.
//  - Flows: one row per flow created at once; its counts are aggregated from Tasks by Tasks_flow.
//  - 'waiting' is unfinished: the dedup key of a waiting task is held (Tasks_dedup recreated). Tasks_open keeps
//    the pending and running tabs; the waiting tab has Tasks_waiting. Tasks_key_open stays pending/running: it
//    counts a key's running tasks, and a keyed task gets its ConcurrencyKeys row when it becomes pending (trigger).
// Frozen: released, this text never changes (db/sqlite/frozen-migrations.test.ts pins it); a fix is a new migration.
import type { SqliteMigration } from './migration';

export const migration: SqliteMigration = {
  version: 15,
  name: 'workflows',
  sql: `
ALTER TABLE Tasks ADD COLUMN flow_id INTEGER;
ALTER TABLE Tasks ADD COLUMN flow_node TEXT;
ALTER TABLE Tasks ADD COLUMN parent_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE Tasks ADD COLUMN parents_left INTEGER NOT NULL DEFAULT 0;
ALTER TABLE Tasks ADD COLUMN blocked_by INTEGER;

DROP INDEX Tasks_dedup;
CREATE UNIQUE INDEX Tasks_dedup ON Tasks(dedup_key) WHERE dedup_key IS NOT NULL AND status IN ('waiting', 'pending', 'running');
CREATE INDEX Tasks_waiting ON Tasks(status, id) WHERE status = 'waiting';
CREATE INDEX Tasks_flow ON Tasks(flow_id) WHERE flow_id IS NOT NULL;

CREATE TABLE TaskEdges (
  parent_id         INTEGER NOT NULL,
  child_id          INTEGER NOT NULL,
  on_parent_failure TEXT NOT NULL DEFAULT 'cancel',
  done              INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (parent_id, child_id)
) WITHOUT ROWID;
CREATE INDEX TaskEdges_child ON TaskEdges(child_id, parent_id);

CREATE TABLE Flows (
  id         INTEGER PRIMARY KEY,
  name       TEXT,
  caller     TEXT,
  created_at INTEGER NOT NULL,
  node_count INTEGER NOT NULL
);
`,
};
