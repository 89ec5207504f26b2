// T-SQL of queue settings: concurrency limits and pause (every change recorded), the queues with
// their counts and granted tokens, the change history and the tokens themselves.

/** A token is held while its grantee attempt still owns a running task with a live lease. */
const HELD = (c: string, t: string) =>
  `${t}.id = ${c}.task_id AND ${t}.status = 'running' AND ${t}.attempts = ${c}.attempt AND ${t}.lease_until >= @now`;

export const QUEUE_VIEW_COLUMNS = 'q.name, q.concurrency_limit, q.paused, q.max_attempts, q.timeout_ms, q.backoff_ms';

/**
 * Change a queue's limit and/or pause, creating the queue if needed. Parameters: @name, @set_limit,
 * @limit (NULL = unlimited), @set_paused, @paused, @changed_by. Free tokens above a lowered limit
 * go at once; held ones stay until their attempts end (no running task is ever stopped).
 */
export const SET_QUEUE = `SET NOCOUNT ON;
SET XACT_ABORT ON;
DECLARE @now datetime2(3) = SYSUTCDATETIME();
DECLARE @old_limit int, @old_paused bit;
BEGIN TRANSACTION;
IF NOT EXISTS (SELECT 1 FROM readpast.Queues AS q WITH (UPDLOCK, HOLDLOCK) WHERE q.name = @name)
BEGIN
  INSERT INTO readpast.Queues (name) VALUES (@name);
  INSERT INTO readpast.QueueCounts (queue, status, n)
    SELECT @name, s.status, 0 FROM (VALUES ('pending'), ('running'), ('succeeded'), ('dead'), ('cancelled')) AS s (status)
    WHERE NOT EXISTS (SELECT 1 FROM readpast.QueueCounts AS c WHERE c.queue = @name AND c.status = s.status);
END;
SELECT @old_limit = q.concurrency_limit, @old_paused = q.paused FROM readpast.Queues AS q WITH (UPDLOCK) WHERE q.name = @name;
IF @set_limit = 1 AND ((@old_limit IS NULL AND @limit IS NOT NULL) OR (@old_limit IS NOT NULL AND @limit IS NULL)
    OR @old_limit <> @limit)
BEGIN
  UPDATE readpast.Queues SET concurrency_limit = @limit WHERE name = @name;
  INSERT INTO readpast.QueueChanges (queue, at, changed_by, field, old_value, new_value)
    VALUES (@name, @now, @changed_by, 'concurrencyLimit', COALESCE(CAST(@old_limit AS nvarchar(20)), N'unlimited'),
      COALESCE(CAST(@limit AS nvarchar(20)), N'unlimited'));
  DELETE FROM readpast.ConcurrencyTokens WHERE queue = @name AND status = 'free' AND (@limit IS NULL OR token_no > @limit);
END;
IF @set_paused = 1 AND @old_paused <> @paused
BEGIN
  UPDATE readpast.Queues SET paused = @paused WHERE name = @name;
  INSERT INTO readpast.QueueChanges (queue, at, changed_by, field, old_value, new_value)
    VALUES (@name, @now, @changed_by, 'paused', CASE WHEN @old_paused = 1 THEN N'true' ELSE N'false' END,
      CASE WHEN @paused = 1 THEN N'true' ELSE N'false' END);
END;
COMMIT TRANSACTION;
SELECT ${QUEUE_VIEW_COLUMNS} FROM readpast.Queues AS q WHERE q.name = @name;`;

/** Every queue with its kept pending / running counts and the tokens held now. */
export const LIST_QUEUES = `SET NOCOUNT ON;
DECLARE @now datetime2(3) = SYSUTCDATETIME();
SELECT ${QUEUE_VIEW_COLUMNS},
  COALESCE((SELECT c.n FROM readpast.QueueCounts AS c WHERE c.queue = q.name AND c.status = 'pending'), 0) AS pending,
  COALESCE((SELECT c.n FROM readpast.QueueCounts AS c WHERE c.queue = q.name AND c.status = 'running'), 0) AS running,
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
