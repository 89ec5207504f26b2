// T-SQL of alert rules (readpast.AlertRules), their firings (readpast.AlertFirings) and the facts the rules read.
import { historyCommandOf } from './history';
import { BEGIN, DECLARE_MOVES, MOVES_TO_DELTAS, TALLY } from './tally';

const RULE_COLUMNS = `r.id, r.name, r.kind, r.params, r.url, r.secret, r.format, r.dedup_ms, r.enabled, r.cursor_at, r.cursor_id,
  r.created_by, r.created_at, r.updated_by, r.updated_at`;

export const LIST_RULES = `SELECT ${RULE_COLUMNS} FROM readpast.AlertRules AS r ORDER BY r.name;`;

export const GET_RULE = `SELECT ${RULE_COLUMNS} FROM readpast.AlertRules AS r WHERE r.id = @id;`;

/** a new rule unless the name is taken; returns its id (none when taken) */
export const CREATE_RULE = `SET NOCOUNT ON;
DECLARE @ids TABLE (id int NOT NULL);
INSERT INTO readpast.AlertRules (name, kind, params, url, secret, format, dedup_ms, enabled, created_by, created_at, updated_by, updated_at)
  OUTPUT inserted.id INTO @ids
  SELECT @name, @kind, @params, @url, @secret, @format, @dedup_ms, @enabled, @by, SYSUTCDATETIME(), @by, SYSUTCDATETIME()
  WHERE NOT EXISTS (SELECT 1 FROM readpast.AlertRules AS x WITH (UPDLOCK, HOLDLOCK) WHERE x.name = @name);
SELECT i.id FROM @ids AS i;`;

/** replace rule @id's definition (the cursor kept); `result`: updated, not_found or exists (the name is another's) */
export const UPDATE_RULE = `SET NOCOUNT ON;
SET XACT_ABORT ON;
DECLARE @result varchar(10) = 'not_found';
BEGIN TRANSACTION;
IF EXISTS (SELECT 1 FROM readpast.AlertRules AS x WITH (UPDLOCK, HOLDLOCK) WHERE x.name = @name AND x.id <> @id)
  SET @result = 'exists';
ELSE
BEGIN
  UPDATE r SET name = @name, kind = @kind, params = @params, url = @url, secret = @secret, format = @format,
      dedup_ms = @dedup_ms, enabled = @enabled, updated_by = @by, updated_at = SYSUTCDATETIME()
    FROM readpast.AlertRules AS r WHERE r.id = @id;
  IF @@ROWCOUNT = 1 SET @result = 'updated';
END;
COMMIT TRANSACTION;
SELECT @result AS result;`;

export const DELETE_RULE = `SET NOCOUNT ON;
DELETE FROM readpast.AlertRules WHERE id = @id;
SELECT @@ROWCOUNT AS deleted;`;

/**
 * One evaluation's writes in one transaction. @cursors: [{ruleId, fromAt, fromId, toAt, toId}] — each rule's
 * cursor moves only from where it was read. @fires: [{ord, token, ruleId, ruleName, key, dedupMs, message, test,
 * needsCursor, queue, command, payload, maxAttempts}] — a fire is dropped when it needs a cursor that did not
 * move here, or when the same (rule, key) fired within dedupMs (checked under UPDLOCK, HOLDLOCK: two sessions
 * writing the same firing serialise on that key range, and the second finds the first's row). Each remaining
 * fire is recorded with its delivery task. Lock order: AlertRules → AlertFirings → Queues → Tasks → the tally.
 * Returns (ord, token, firing_id) of the fires recorded.
 */
export const WRITE_ALERTS = `${BEGIN}
${DECLARE_MOVES}
DECLARE @plan TABLE (ord int NOT NULL PRIMARY KEY, token uniqueidentifier NOT NULL, rule_id int NULL, rule_name nvarchar(64) NOT NULL,
  dedup_key nvarchar(400) COLLATE Latin1_General_100_BIN2 NOT NULL, dedup_ms int NOT NULL, message nvarchar(2000) NOT NULL,
  test bit NOT NULL, needs_cursor bit NOT NULL, queue nvarchar(64) COLLATE Latin1_General_100_BIN2 NOT NULL,
  command nvarchar(128) NOT NULL, payload nvarchar(max) NULL, max_attempts int NOT NULL);
INSERT INTO @plan (ord, token, rule_id, rule_name, dedup_key, dedup_ms, message, test, needs_cursor, queue, command, payload, max_attempts)
  SELECT j.ord, j.token, j.rule_id, j.rule_name, j.dedup_key, j.dedup_ms, j.message, j.test, j.needs_cursor, j.queue, j.command,
    j.payload, j.max_attempts
  FROM OPENJSON(@fires) WITH (
    ord int '$.ord', token uniqueidentifier '$.token', rule_id int '$.ruleId', rule_name nvarchar(64) '$.ruleName',
    dedup_key nvarchar(400) '$.key', dedup_ms int '$.dedupMs', message nvarchar(2000) '$.message', test bit '$.test',
    needs_cursor bit '$.needsCursor', queue nvarchar(64) '$.queue', command nvarchar(128) '$.command',
    payload nvarchar(max) '$.payload', max_attempts int '$.maxAttempts') AS j;
DECLARE @cur TABLE (rule_id int NOT NULL PRIMARY KEY, from_at datetime2(3) NULL, from_id bigint NULL, to_at datetime2(3) NULL,
  to_id bigint NULL);
INSERT INTO @cur (rule_id, from_at, from_id, to_at, to_id)
  SELECT j.rule_id, j.from_at, j.from_id, j.to_at, j.to_id
  FROM OPENJSON(@cursors) WITH (rule_id int '$.ruleId', from_at datetime2(3) '$.fromAt', from_id bigint '$.fromId',
    to_at datetime2(3) '$.toAt', to_id bigint '$.toId') AS j;
DECLARE @moved TABLE (rule_id int NOT NULL PRIMARY KEY);
DECLARE @out TABLE (id bigint NOT NULL, task_token uniqueidentifier NOT NULL);
BEGIN TRANSACTION;
UPDATE r SET cursor_at = c.to_at, cursor_id = c.to_id
  OUTPUT inserted.id INTO @moved
  FROM readpast.AlertRules AS r JOIN @cur AS c ON c.rule_id = r.id
  WHERE (r.cursor_at = c.from_at OR (r.cursor_at IS NULL AND c.from_at IS NULL))
    AND (r.cursor_id = c.from_id OR (r.cursor_id IS NULL AND c.from_id IS NULL));
DELETE p FROM @plan AS p
  WHERE p.needs_cursor = 1 AND NOT EXISTS (SELECT 1 FROM @moved AS m WHERE m.rule_id = p.rule_id);
DELETE p FROM @plan AS p
  WHERE p.dedup_ms > 0 AND EXISTS (SELECT 1 FROM readpast.AlertFirings AS f WITH (UPDLOCK, HOLDLOCK)
    WHERE f.rule_id = p.rule_id AND f.dedup_key = p.dedup_key AND f.fired_at > DATEADD(millisecond, -p.dedup_ms, @now));
IF EXISTS (SELECT 1 FROM @plan)
BEGIN
  INSERT INTO readpast.AlertFirings (rule_id, rule_name, dedup_key, fired_at, message, task_token, status, test)
    OUTPUT inserted.id, inserted.task_token INTO @out
    SELECT p.rule_id, p.rule_name, p.dedup_key, @now, p.message, p.token, 'queued', p.test FROM @plan AS p ORDER BY p.ord;
  INSERT INTO readpast.Queues (name)
    SELECT DISTINCT p.queue FROM @plan AS p
    WHERE NOT EXISTS (SELECT 1 FROM readpast.Queues AS q WITH (UPDLOCK, HOLDLOCK) WHERE q.name = p.queue);
  INSERT INTO readpast.Tasks (token, queue, kind, command, payload, status, priority, run_after, max_attempts, timeout_ms,
      caller, created_at)
    OUTPUT inserted.id, inserted.queue, inserted.batch_id, inserted.stage, NULL, 'pending', NULL, NULL, NULL INTO @moves
    SELECT p.token, p.queue, 'handler', p.command, p.payload, 'pending', 0, @now, p.max_attempts, q.timeout_ms, N'alerts', @now
    FROM @plan AS p JOIN readpast.Queues AS q ON q.name = p.queue
    ORDER BY p.ord;
  -- deliveries count as enqueued in the history, as every other insert of a task does
  INSERT INTO @hist (queue, command, kind, ms)
    SELECT p.queue, ${historyCommandOf("'handler'", 'p.command')}, 'enqueued', NULL FROM @plan AS p;
  ${MOVES_TO_DELTAS}
  SET @m_enqueued = (SELECT COUNT(*) FROM @moves);
  ${TALLY}
  -- fired alerts are kept 30 days
  WITH old AS (SELECT TOP (500) f.id FROM readpast.AlertFirings AS f WHERE f.fired_at < DATEADD(day, -30, @now) ORDER BY f.id)
  DELETE FROM old;
END;
COMMIT TRANSACTION;
SELECT p.ord, p.token, o.id AS firing_id FROM @plan AS p JOIN @out AS o ON o.task_token = p.token ORDER BY p.ord;`;

/** newest first below @cursor, of rule @rule_id (or all), with the delivery task's status */
export const LIST_FIRINGS = `SELECT TOP (@limit) f.id, f.rule_id, f.rule_name, f.dedup_key, f.fired_at, f.message, f.task_token, f.status,
  f.test, t.status AS task_status
FROM readpast.AlertFirings AS f
LEFT JOIN readpast.Tasks AS t ON t.token = f.task_token
WHERE f.id < @cursor AND (@rule_id IS NULL OR f.rule_id = @rule_id)
ORDER BY f.id DESC;`;

/**
 * dead tasks after (@after_at, @after_id), finished at least @lag_ms ago, of @queue / @command (NULL: any), oldest
 * first (IX_Tasks_finished: its filter is implied by the literal IS NOT NULL)
 */
export const DEAD_SINCE = `SELECT TOP (@limit) t.id, t.token, t.queue, t.command, t.finished_at, t.error_message
FROM readpast.Tasks AS t
WHERE t.finished_at IS NOT NULL AND t.finished_at >= @after_at AND (t.finished_at > @after_at OR t.id > @after_id)
  AND t.status = 'dead'
  AND t.finished_at <= DATEADD(millisecond, -@lag_ms, SYSUTCDATETIME())
  AND (@queue IS NULL OR t.queue = @queue) AND (@command IS NULL OR t.command = @command)
ORDER BY t.finished_at, t.id;`;

/** the newest ended attempts of @command, at most @limit, among the last @scan attempts of all (a bounded range) */
export const RECENT_ATTEMPTS = `SELECT TOP (@limit) l.id, t.token, l.outcome, l.error_message
FROM readpast.ExecutionLog AS l
LEFT JOIN readpast.Tasks AS t ON t.id = l.task_id
WHERE l.id > (SELECT ISNULL(MAX(x.id), 0) FROM readpast.ExecutionLog AS x) - @scan
  AND l.command = @command AND l.ended_at IS NOT NULL
ORDER BY l.id DESC;`;
