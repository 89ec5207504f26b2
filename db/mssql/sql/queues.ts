// T-SQL of queue settings: concurrency limits, pause, per-key limits, keyFrom and rate limits (every change
// recorded), the queues with their counts, granted tokens and rate windows, the change history and the tokens.
import { ESCALATION_CHUNK } from './chunks';
import { RATE_USAGE_APPLY } from './keys';

/** A token is held while its grantee attempt still owns a running task with a live lease. */
const HELD = (c: string, t: string) =>
  `${t}.id = ${c}.task_id AND ${t}.status = 'running' AND ${t}.attempts = ${c}.attempt AND ${t}.lease_until >= @now`;

export const QUEUE_VIEW_COLUMNS = `q.name, q.concurrency_limit, q.paused, q.max_attempts, q.timeout_ms, q.backoff_ms, q.per_key_limit,
  q.key_from, q.rate_limit, q.rate_period_s, q.rate_per_key`;

/** A rate as rateText (lib/engine/keys.ts) writes it: `60/1m`, `20/2s per key`, `none`. */
const rateText = (limit: string, period: string, perKey: string) => `CASE WHEN ${limit} IS NULL THEN N'none' ELSE CONCAT(${limit}, N'/',
      CASE WHEN ${period} % 86400 = 0 THEN CONCAT(${period} / 86400, N'd') WHEN ${period} % 3600 = 0 THEN CONCAT(${period} / 3600, N'h')
        WHEN ${period} % 60 = 0 THEN CONCAT(${period} / 60, N'm') ELSE CONCAT(${period}, N's') END,
      CASE WHEN ${perKey} = 1 THEN N' per key' ELSE N'' END) END`;

const OLD_RATE_TEXT = rateText('@old_rate', '@old_period', '@old_per_key');
const limitText = (v: string) => `COALESCE(CAST(${v} AS nvarchar(20)), N'unlimited')`;
const flagText = (v: string) => `CASE WHEN ${v} = 1 THEN N'true' ELSE N'false' END`;

/** A recorded change of one field, when its flag says it changed. */
const recordChange = (changed: string, field: string, oldValue: string, newValue: string) => `IF ${changed} = 1
  INSERT INTO readpast.QueueChanges (queue, at, changed_by, field, old_value, new_value)
    VALUES (@name, @now, @changed_by, '${field}', ${oldValue},
      ${newValue});`;

/**
 * Change a queue's limit, pause, per-key limit, keyFrom and/or rate limit, creating the queue if needed.
 * Parameters: @name, @set_limit, @limit (NULL = unlimited), @set_paused, @paused, @set_key_limit, @key_limit,
 * @set_key_from, @key_from, @set_rate, @rate_limit (NULL = none), @rate_period, @rate_per_key, @changed_by.
 * Free tokens above a lowered limit go at once (ESCALATION_CHUNK per statement); held ones stay until their
 * attempts end (no running task is ever stopped; a lowered per-key limit stops nothing either). A new rate
 * starts its window from the attempts of the queue already started in it (as the SQLite store does): the
 * queue's slots are dropped and made again from ExecutionLog, numbered per rate key. Lock order
 * (sql/claim.ts): the queue's row first, written at once — a claim of the queue holds that row (limited:
 * written; unlimited: read with HOLDLOCK) until it commits, so a change and a claim wait for each other, never
 * overlap; the starts in the window are read next (Tasks, ExecutionLog: plain reads, nothing later held);
 * then its tokens, its rate slots, its count rows (a new queue), its recorded changes.
 */
export const SET_QUEUE = `SET NOCOUNT ON;
SET XACT_ABORT ON;
DECLARE @now datetime2(3) = SYSUTCDATETIME();
DECLARE @old_limit int, @old_paused bit, @created bit = 0, @limit_changed bit = 0, @paused_changed bit = 0;
DECLARE @old_key_limit int, @old_key_from nvarchar(200), @old_rate int, @old_period int, @old_per_key bit;
DECLARE @key_limit_changed bit = 0, @key_from_changed bit = 0, @rate_changed bit = 0;
DECLARE @n int = ${ESCALATION_CHUNK}, @from int = 1, @seeded int = 0;
DECLARE @starts TABLE (n int NOT NULL PRIMARY KEY, rate_key nvarchar(200) COLLATE Latin1_General_100_BIN2 NOT NULL,
  slot_no int NOT NULL, used_at datetime2(3) NOT NULL, task_id bigint NOT NULL);
BEGIN TRANSACTION;
IF NOT EXISTS (SELECT 1 FROM readpast.Queues AS q WITH (UPDLOCK, HOLDLOCK) WHERE q.name = @name)
BEGIN
  INSERT INTO readpast.Queues (name) VALUES (@name);
  SET @created = 1;
END;
SELECT @old_limit = q.concurrency_limit, @old_paused = q.paused, @old_key_limit = q.per_key_limit, @old_key_from = q.key_from,
    @old_rate = q.rate_limit, @old_period = q.rate_period_s, @old_per_key = q.rate_per_key
  FROM readpast.Queues AS q WITH (UPDLOCK) WHERE q.name = @name;
IF @set_limit = 1 AND ((@old_limit IS NULL AND @limit IS NOT NULL) OR (@old_limit IS NOT NULL AND @limit IS NULL)
    OR @old_limit <> @limit)
  SET @limit_changed = 1;
IF @set_paused = 1 AND @old_paused <> @paused
  SET @paused_changed = 1;
IF @set_key_limit = 1 AND (COALESCE(@old_key_limit, -1) <> COALESCE(@key_limit, -1))
  SET @key_limit_changed = 1;
IF @set_key_from = 1 AND (COALESCE(@old_key_from, N'') COLLATE Latin1_General_100_BIN2 <> COALESCE(@key_from, N''))
  SET @key_from_changed = 1;
IF @set_rate = 1 AND (COALESCE(@old_rate, -1) <> COALESCE(@rate_limit, -1)
    OR (@rate_limit IS NOT NULL AND (@old_period <> @rate_period OR @old_per_key <> @rate_per_key)))
  SET @rate_changed = 1;
UPDATE readpast.Queues
  SET concurrency_limit = CASE WHEN @limit_changed = 1 THEN @limit ELSE concurrency_limit END,
      paused = CASE WHEN @paused_changed = 1 THEN @paused ELSE paused END,
      per_key_limit = CASE WHEN @key_limit_changed = 1 THEN @key_limit ELSE per_key_limit END,
      key_from = CASE WHEN @key_from_changed = 1 THEN @key_from ELSE key_from END,
      rate_limit = CASE WHEN @rate_changed = 1 THEN @rate_limit ELSE rate_limit END,
      rate_period_s = CASE WHEN @rate_changed = 1 THEN CASE WHEN @rate_limit IS NULL THEN NULL ELSE @rate_period END
        ELSE rate_period_s END,
      rate_per_key = CASE WHEN @rate_changed = 1 THEN CASE WHEN @rate_limit IS NULL THEN 0 ELSE @rate_per_key END ELSE rate_per_key END
  WHERE name = @name AND (@limit_changed = 1 OR @paused_changed = 1 OR @key_limit_changed = 1 OR @key_from_changed = 1
    OR @rate_changed = 1);
-- a new rate: the attempts of the queue started in its window, numbered per rate key (read before any slot is locked)
IF @rate_changed = 1 AND @rate_limit IS NOT NULL
  INSERT INTO @starts (n, rate_key, slot_no, used_at, task_id)
    SELECT ROW_NUMBER() OVER (ORDER BY x.started_at, x.id), x.rate_key,
      ROW_NUMBER() OVER (PARTITION BY x.rate_key ORDER BY x.started_at, x.id), x.started_at, x.task_id
    FROM (SELECT l.id, l.task_id, l.started_at,
            CASE WHEN @rate_per_key = 1 THEN COALESCE(t.concurrency_key, N'') ELSE N'' END AS rate_key
          FROM readpast.ExecutionLog AS l JOIN readpast.Tasks AS t ON t.id = l.task_id
          WHERE l.queue = @name AND l.started_at > DATEADD(SECOND, -@rate_period, @now)) AS x;
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
SET @n = ${ESCALATION_CHUNK};
WHILE @rate_changed = 1 AND @n = ${ESCALATION_CHUNK}
BEGIN
  SET @n = 0;
  WITH doomed AS (
    SELECT TOP (${ESCALATION_CHUNK}) s.queue, s.rate_key, s.slot_no FROM readpast.RateSlots AS s WHERE s.queue = @name
  )
  DELETE FROM doomed;
  SET @n = @@ROWCOUNT;
END;
SET @seeded = (SELECT COUNT(*) FROM @starts);
WHILE @from <= @seeded
BEGIN
  INSERT INTO readpast.RateSlots (queue, rate_key, slot_no, used_at, task_id)
    SELECT @name, x.rate_key, x.slot_no, x.used_at, x.task_id FROM @starts AS x
    WHERE x.n >= @from AND x.n < @from + ${ESCALATION_CHUNK};
  SET @from = @from + ${ESCALATION_CHUNK};
END;
IF @created = 1
  INSERT INTO readpast.QueueCounts (queue, status, n)
    SELECT @name, s.status, 0 FROM (VALUES ('pending'), ('running'), ('succeeded'), ('dead'), ('cancelled')) AS s (status)
    WHERE NOT EXISTS (SELECT 1 FROM readpast.QueueCounts AS c WHERE c.queue = @name AND c.status = s.status);
${recordChange('@limit_changed', 'concurrencyLimit', limitText('@old_limit'), limitText('@limit'))}
${recordChange('@paused_changed', 'paused', flagText('@old_paused'), flagText('@paused'))}
${recordChange('@key_limit_changed', 'perKeyLimit', limitText('@old_key_limit'), limitText('@key_limit'))}
${recordChange('@key_from_changed', 'keyFrom', "COALESCE(@old_key_from, N'none')", "COALESCE(@key_from, N'none')")}
${recordChange('@rate_changed', 'rateLimit', OLD_RATE_TEXT, rateText('@rate_limit', '@rate_period', '@rate_per_key'))}
COMMIT TRANSACTION;
SELECT ${QUEUE_VIEW_COLUMNS} FROM readpast.Queues AS q WHERE q.name = @name;`;

/**
 * Every queue with its kept pending / running counts (summed over their slots: sql/tally.ts), the tokens held
 * now and its rate window (the busiest rate key's starts in the window and, when full, the next start).
 */
export const LIST_QUEUES = `SET NOCOUNT ON;
DECLARE @now datetime2(3) = SYSUTCDATETIME();
SELECT ${QUEUE_VIEW_COLUMNS},
  COALESCE((SELECT SUM(c.n) FROM readpast.QueueCounts AS c WHERE c.queue = q.name AND c.status = 'pending'), 0) AS pending,
  COALESCE((SELECT SUM(c.n) FROM readpast.QueueCounts AS c WHERE c.queue = q.name AND c.status = 'running'), 0) AS running,
  (SELECT COUNT(*) FROM readpast.ConcurrencyTokens AS c JOIN readpast.Tasks AS t ON ${HELD('c', 't')}
    WHERE c.queue = q.name AND c.status = 'granted') AS granted,
  COALESCE(rw.started, 0) AS rate_started, rn.next_at AS rate_next_at
FROM readpast.Queues AS q
${RATE_USAGE_APPLY}
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
