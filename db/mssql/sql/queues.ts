// T-SQL of queue settings: concurrency limits and pause (every change recorded), the queues with
// their counts and granted tokens, the change history and the tokens themselves.
import { ESCALATION_CHUNK } from './enqueue';

/** A token is held while its grantee attempt still owns a running task with a live lease. */
const HELD = (c: string, t: string) =>
  `${t}.id = ${c}.task_id AND ${t}.status = 'running' AND ${t}.attempts = ${c}.attempt AND ${t}.lease_until >= @now`;

export const QUEUE_VIEW_COLUMNS = 'q.name, q.concurrency_limit, q.paused, q.max_attempts, q.timeout_ms, q.backoff_ms';

/**
 * Change a queue's limit and/or pause, creating the queue if needed. Parameters: @name, @set_limit,
 * @limit (NULL = unlimited), @set_paused, @paused, @changed_by. Free tokens above a lowered limit
 * go at once (ESCALATION_CHUNK per statement); held ones stay until their attempts end (no running task
 * is ever stopped). Lock order (sql/claim.ts): the queue's row first, written at once — a claim of the
 * queue holds that row (limited: written; unlimited: read with HOLDLOCK) until it commits, so a pause
 * or a new limit and a claim wait for each other, never overlap; then its tokens, its count rows (a new
 * queue), its recorded changes.
 */
export const SET_QUEUE = `SET NOCOUNT ON;
SET XACT_ABORT ON;
DECLARE @now datetime2(3) = SYSUTCDATETIME();
DECLARE @old_limit int, @old_paused bit, @created bit = 0, @limit_changed bit = 0, @paused_changed bit = 0;
DECLARE @n int = ${ESCALATION_CHUNK};
BEGIN TRANSACTION;
IF NOT EXISTS (SELECT 1 FROM readpast.Queues AS q WITH (UPDLOCK, HOLDLOCK) WHERE q.name = @name)
BEGIN
  INSERT INTO readpast.Queues (name) VALUES (@name);
  SET @created = 1;
END;
SELECT @old_limit = q.concurrency_limit, @old_paused = q.paused FROM readpast.Queues AS q WITH (UPDLOCK) WHERE q.name = @name;
IF @set_limit = 1 AND ((@old_limit IS NULL AND @limit IS NOT NULL) OR (@old_limit IS NOT NULL AND @limit IS NULL)
    OR @old_limit <> @limit)
  SET @limit_changed = 1;
IF @set_paused = 1 AND @old_paused <> @paused
  SET @paused_changed = 1;
UPDATE readpast.Queues
  SET concurrency_limit = CASE WHEN @limit_changed = 1 THEN @limit ELSE concurrency_limit END,
      paused = CASE WHEN @paused_changed = 1 THEN @paused ELSE paused END
  WHERE name = @name AND (@limit_changed = 1 OR @paused_changed = 1);
WHILE @limit_changed = 1 AND @n = ${ESCALATION_CHUNK}
BEGIN
  SET @n = 0;
  WITH doomed AS (
    SELECT TOP (${ESCALATION_CHUNK}) c.queue, c.token_no FROM readpast.ConcurrencyTokens AS c
    WHERE c.queue = @name AND c.status = 'free' AND (@limit IS NULL OR c.token_no > @limit)
  )
  DELETE FROM doomed;
  SET @n = @@ROWCOUNT;
END;
IF @created = 1
  INSERT INTO readpast.QueueCounts (queue, status, n)
    SELECT @name, s.status, 0 FROM (VALUES ('pending'), ('running'), ('succeeded'), ('dead'), ('cancelled')) AS s (status)
    WHERE NOT EXISTS (SELECT 1 FROM readpast.QueueCounts AS c WHERE c.queue = @name AND c.status = s.status);
IF @limit_changed = 1
  INSERT INTO readpast.QueueChanges (queue, at, changed_by, field, old_value, new_value)
    VALUES (@name, @now, @changed_by, 'concurrencyLimit', COALESCE(CAST(@old_limit AS nvarchar(20)), N'unlimited'),
      COALESCE(CAST(@limit AS nvarchar(20)), N'unlimited'));
IF @paused_changed = 1
  INSERT INTO readpast.QueueChanges (queue, at, changed_by, field, old_value, new_value)
    VALUES (@name, @now, @changed_by, 'paused', CASE WHEN @old_paused = 1 THEN N'true' ELSE N'false' END,
      CASE WHEN @paused = 1 THEN N'true' ELSE N'false' END);
COMMIT TRANSACTION;
SELECT ${QUEUE_VIEW_COLUMNS} FROM readpast.Queues AS q WHERE q.name = @name;`;

/** Every queue with its kept pending / running counts (summed over their slots: sql/tally.ts) and the tokens held now. */
export const LIST_QUEUES = `SET NOCOUNT ON;
DECLARE @now datetime2(3) = SYSUTCDATETIME();
SELECT ${QUEUE_VIEW_COLUMNS},
  COALESCE((SELECT SUM(c.n) FROM readpast.QueueCounts AS c WHERE c.queue = q.name AND c.status = 'pending'), 0) AS pending,
  COALESCE((SELECT SUM(c.n) FROM readpast.QueueCounts AS c WHERE c.queue = q.name AND c.status = 'running'), 0) AS running,
  (SELECT COUNT(*) FROM readpast.ConcurrencyTokens AS c JOIN readpast.Tasks AS t ON ${HELD('c', 't')}
    WHERE c.queue = q.name AND c.status = 'granted') AS granted
FROM readpast.Queues AS q
ORDER BY q.name;`;

const CHANGE_COLUMNS = 'x.id, x.queue, x.at, x.changed_by, x.field, x.old_value, x.new_value';

export const QUEUE_CHANGES = `SELECT TOP (@limit) ${CHANGE_COLUMNS} FROM readpast.QueueChanges AS x
WHERE x.queue = @queue ORDER BY x.id DESC;`;
export const QUEUE_CHANGES_ALL = `SELECT TOP (@limit) ${CHANGE_COLUMNS} FROM readpast.QueueChanges AS x ORDER BY x.id DESC;`;

const tokens = (where: string) => `SET NOCOUNT ON;
DECLARE @now datetime2(3) = SYSUTCDATETIME();
SELECT TOP (2000) c.queue, c.token_no, c.status, c.attempt, c.worker_id, c.granted_at, t.token, w.session,
  w.state AS worker_state, DATEDIFF_BIG(MILLISECOND, w.heartbeat_at, @now) AS heartbeat_age_ms,
  CASE WHEN c.status = 'granted' AND NOT EXISTS (SELECT 1 FROM readpast.Tasks AS h WHERE ${HELD('c', 'h')})
    THEN 1 ELSE 0 END AS lost
FROM readpast.ConcurrencyTokens AS c
LEFT JOIN readpast.Tasks AS t ON t.id = c.task_id
LEFT JOIN readpast.Workers AS w ON w.worker_id = c.worker_id
LEFT JOIN readpast.Queues AS q ON q.name = c.queue
WHERE NOT (c.status = 'free' AND c.token_no > COALESCE(q.concurrency_limit, 0))${where}
ORDER BY c.queue, c.token_no;`;

/** Tokens of one queue (free ones above a lowered limit, left for the next claim to drop, are not shown). */
export const LIST_TOKENS = tokens('\n  AND c.queue = @queue');
export const LIST_TOKENS_ALL = tokens('');
