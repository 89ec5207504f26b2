// SQL of queues: settings (limit, pause) and their recorded changes, Taskling's concurrency tokens
// (released here; granted by the claim, sql/claim.ts), and the queue views.

/**
 * A token is held while its grantee attempt still owns a running task with a live lease, or a task claimed ahead
 * for that attempt (its attempts one less) with a live lease (binds: now).
 */
export const HELD = `t.status IN ('claimed', 'running') AND t.attempts + (t.status = 'claimed') = c.attempt AND t.lease_until >= ?`;

const QUEUE_COLUMNS = `name, concurrency_limit, paused, max_attempts, timeout_ms, backoff_ms, per_key_limit, key_from, rate_limit,
      rate_period_s, rate_per_key`;

export const GET_QUEUE = `SELECT ${QUEUE_COLUMNS} FROM Queues WHERE name = ?`;

/** What an enqueue takes from its queue: the task defaults and keyFrom (three columns: a task's row binds nothing else of it). */
export const GET_QUEUE_DEFAULTS = 'SELECT max_attempts, timeout_ms, key_from FROM Queues WHERE name = ?';

/** Create a queue with the defaults unless it exists (name, created_at). */
export const ENSURE_QUEUE = 'INSERT INTO Queues (name, created_at) VALUES (?, ?) ON CONFLICT (name) DO NOTHING';

export const SET_LIMIT = 'UPDATE Queues SET concurrency_limit = ? WHERE name = ?';
export const SET_PAUSED = 'UPDATE Queues SET paused = ? WHERE name = ?';
export const SET_PER_KEY_LIMIT = 'UPDATE Queues SET per_key_limit = ? WHERE name = ?';
export const SET_KEY_FROM = 'UPDATE Queues SET key_from = ? WHERE name = ?';
/** (rate_limit, rate_period_s, rate_per_key, name) */
export const SET_RATE = 'UPDATE Queues SET rate_limit = ?, rate_period_s = ?, rate_per_key = ? WHERE name = ?';

export const RECORD_QUEUE_CHANGE =
  'INSERT INTO QueueChanges (queue, at, changed_by, field, old_value, new_value) VALUES (?, ?, ?, ?, ?, ?)';

/** An unlimited queue keeps no free tokens. */
export const DROP_FREE_TOKENS = "DELETE FROM ConcurrencyTokens WHERE queue = ? AND status = 'free'";
/** A lowered limit drops the free tokens above it (held ones go when released). */
export const DROP_FREE_TOKENS_ABOVE = "DELETE FROM ConcurrencyTokens WHERE queue = ? AND status = 'free' AND token_no > ?";

/** Release the token an attempt holds, fenced on the attempt (queue, token_no, task_id, attempt). */
export const RELEASE_TOKEN = `UPDATE ConcurrencyTokens SET status = 'free', task_id = NULL, attempt = NULL, worker_id = NULL,
      granted_at = NULL
      WHERE queue = ? AND token_no = ? AND task_id = ? AND attempt = ?`;
/** A released token above the queue's current limit is dropped (queue, token_no, queue). */
export const DROP_RELEASED_TOKEN = `DELETE FROM ConcurrencyTokens WHERE queue = ? AND token_no = ? AND status = 'free'
      AND token_no > COALESCE((SELECT concurrency_limit FROM Queues WHERE name = ?), 0)`;

/** Every queue with its counts and granted tokens (binds: now). */
export const LIST_QUEUES = `SELECT q.name, q.concurrency_limit, q.paused, q.max_attempts, q.timeout_ms, q.backoff_ms, q.per_key_limit,
      q.key_from, q.rate_limit, q.rate_period_s, q.rate_per_key,
      COALESCE((SELECT n FROM QueueCounts c WHERE c.queue = q.name AND c.status = 'pending'), 0) AS pending,
      COALESCE((SELECT n FROM QueueCounts c WHERE c.queue = q.name AND c.status = 'running'), 0) AS running,
      (SELECT COUNT(*) FROM ConcurrencyTokens c JOIN Tasks t ON t.id = c.task_id
        WHERE c.queue = q.name AND c.status = 'granted' AND ${HELD}) AS granted
      FROM Queues q ORDER BY q.name`;

export const QUEUE_CHANGES = 'SELECT * FROM QueueChanges WHERE queue = ? ORDER BY id DESC LIMIT ?';
export const QUEUE_CHANGES_ALL = 'SELECT * FROM QueueChanges ORDER BY id DESC LIMIT ?';

/** Token grants of one queue, or of all when the queue is null (binds: now, queue, queue). */
export const LIST_TOKENS = `SELECT c.queue, c.token_no, c.status, c.attempt, c.worker_id, c.granted_at, t.token,
      w.session, w.heartbeat_at, w.state AS worker_state,
      CASE WHEN c.status = 'granted' AND NOT EXISTS (SELECT 1 FROM Tasks t WHERE t.id = c.task_id AND ${HELD}) THEN 1 ELSE 0 END AS lost
      FROM ConcurrencyTokens c LEFT JOIN Tasks t ON t.id = c.task_id LEFT JOIN Workers w ON w.worker_id = c.worker_id
      WHERE (? IS NULL OR c.queue = ?) ORDER BY c.queue, c.token_no LIMIT 2000`;
