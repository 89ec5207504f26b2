// SQL of SQLite's code objects (../code-objects.ts): the view and the triggers, as sqlite_master keeps their
// text (the CREATE statement without its semicolon), and the statements that compare and replace them.

/** The running attempts (migration 2 made it as it is now; the code-object step keeps it so). */
export const EXECUTION_STATUS_VIEW = `CREATE VIEW ExecutionStatus AS
  SELECT l.id AS log_id, l.task_id, t.token, l.queue, l.kind, l.command, l.attempt, t.max_attempts,
         l.worker_id, l.session, l.token_no, l.batch_id, l.stage, l.started_at, t.lease_until, t.cancel_requested
  FROM ExecutionLog l CROSS JOIN Tasks t ON t.id = l.task_id
  WHERE l.ended_at IS NULL AND t.status = 'running' AND t.attempts = l.attempt`;

/**
 * Every way a keyed task becomes pending (enqueue, a schedule's fire, a retry, a move to another queue) gives
 * its key a row in ConcurrencyKeys; maintenance deletes the rows of keys with no pending or running task.
 */
export const TASKS_KEY_INSERT_TRIGGER = `CREATE TRIGGER Tasks_key_insert AFTER INSERT ON Tasks WHEN NEW.concurrency_key IS NOT NULL BEGIN
  INSERT INTO ConcurrencyKeys (queue, concurrency_key) VALUES (NEW.queue, NEW.concurrency_key) ON CONFLICT DO NOTHING;
END`;

export const TASKS_KEY_PENDING_TRIGGER = `CREATE TRIGGER Tasks_key_pending AFTER UPDATE OF status, queue ON Tasks
  WHEN NEW.concurrency_key IS NOT NULL AND NEW.status = 'pending' BEGIN
  INSERT INTO ConcurrencyKeys (queue, concurrency_key) VALUES (NEW.queue, NEW.concurrency_key) ON CONFLICT DO NOTHING;
END`;

/** The views and triggers the file holds, with their text. */
export const CODE_STATE = "SELECT type, name, sql FROM sqlite_master WHERE type IN ('view', 'trigger') ORDER BY name";
