// SQLite migration 16: the `claimed` task status — a task a pool claimed ahead for its local queue, not started
// yet (no attempt counted, no ExecutionLog row). It holds what a running task holds for the claim rules, so every
// status-filtered index that counts held or unfinished tasks learns it:
//  - Tasks_dedup: a claimed task keeps its dedup key;
//  - Tasks_open: the open tabs (pending, claimed, running) and the claimed tab;
//  - Tasks_key_open: a key's running and claimed tasks with a live lease count against its per-key limit;
//  - Tasks_running: a queue's running and claimed tasks with a live lease count against its limit (and the lease
//    rescue finds an expired claim among them: a handful of rows).
import type { SqliteMigration } from './migration';

export const migration: SqliteMigration = {
  version: 16,
  name: 'claimed ahead',
  sql: `
DROP INDEX Tasks_dedup;
CREATE UNIQUE INDEX Tasks_dedup ON Tasks(dedup_key)
  WHERE dedup_key IS NOT NULL AND status IN ('waiting', 'pending', 'claimed', 'running');
DROP INDEX Tasks_open;
CREATE INDEX Tasks_open ON Tasks(status, id) WHERE status IN ('pending', 'claimed', 'running');
DROP INDEX Tasks_key_open;
CREATE INDEX Tasks_key_open ON Tasks(queue, concurrency_key, status, lease_until)
  WHERE status IN ('pending', 'claimed', 'running') AND concurrency_key IS NOT NULL;
DROP INDEX Tasks_running;
CREATE INDEX Tasks_running ON Tasks(queue, lease_until) WHERE status IN ('claimed', 'running');
`,
};
