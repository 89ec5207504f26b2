// SQLite migration 16: the `claimed` task status — a task a pool claimed ahead for its local queue, not started
// yet (no attempt counted, no ExecutionLog row). It holds what a running task holds for the claim rules, so the
// status-filtered indexes that count held or unfinished tasks learn it:
//  - Tasks_dedup: a claimed task keeps its dedup key;
//  - Tasks_key_open: a key's running and claimed tasks with a live lease count against its per-key limit;
//  - Tasks_running, now by status first: a queue's running and claimed tasks with a live lease count against its
//    limit; the claimed tab and the lease rescue of a lapsed claim seek the claimed ones (a handful of rows).
// A partial index's WHERE is evaluated on every write that changes the status: an IN list of more than two values
// costs SQLite a temporary table per statement, so Tasks_key_open says its three states as one test and an IN of
// two, behind its key test, and Tasks_open (the pending and running tabs) stays as it was.
import type { SqliteMigration } from './migration';

export const migration: SqliteMigration = {
  version: 16,
  name: 'claimed ahead',
  sql: `
DROP INDEX Tasks_dedup;
CREATE UNIQUE INDEX Tasks_dedup ON Tasks(dedup_key)
  WHERE dedup_key IS NOT NULL AND status IN ('waiting', 'pending', 'claimed', 'running');
DROP INDEX Tasks_key_open;
CREATE INDEX Tasks_key_open ON Tasks(queue, concurrency_key, status, lease_until)
  WHERE concurrency_key IS NOT NULL AND (status = 'pending' OR status IN ('claimed', 'running'));
DROP INDEX Tasks_running;
CREATE INDEX Tasks_running ON Tasks(status, queue, lease_until) WHERE status IN ('claimed', 'running');
`,
};
