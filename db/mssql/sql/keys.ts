// T-SQL of concurrency keys and rate windows (migration 19): the ConcurrencyKeys rows every writer that makes a
// task pending keeps, a queue's keys by running and pending tasks, a rate window now, and their pruning.
// Lock order (sql/claim.ts): ConcurrencyKeys comes after Batches and before Tasks; RateSlots after
// ConcurrencyTokens. Only the claim writes RateSlots (and pruning: PRUNE_REST, maintenance.ts).
import { MAX_CONCURRENCY_KEY_LENGTH } from '../../../lib/engine/limits';

/**
 * The key a queue's key_from finds in a payload: JSON_VALUE's scalar (a string, number or boolean; an object, a
 * list, null or nothing found gives none, as keyOf in lib/engine/keys.ts), an empty one none. The path is a
 * column, which JSON_VALUE takes from SQL Server 2017 on.
 */
export const derivedKey = (payload: string, keyFrom: string) => `NULLIF(JSON_VALUE(${payload}, ${keyFrom}), N'')`;

/**
 * A scheduled task's key: its queue's key_from applied to the schedule's payload; a key longer than
 * MAX_CONCURRENCY_KEY_LENGTH gives none (a fire is not refused for its payload; it is never cut either).
 */
export const SCHEDULE_KEY = `CASE WHEN q.key_from IS NOT NULL AND s.payload IS NOT NULL
        AND LEN(${derivedKey('s.payload', 'q.key_from')} + N'x') - 1 <= ${MAX_CONCURRENCY_KEY_LENGTH}
      THEN ${derivedKey('s.payload', 'q.key_from')} END`;

/**
 * The ConcurrencyKeys rows the tasks `source` selects (a SELECT of queue, concurrency_key) will be pending under:
 * a missing one inserted (served_at 0: its key is served first), its range held by UPDLOCK, HOLDLOCK so that two
 * writers of one new key cannot both insert it, and so that pruning cannot delete a row a pending task needs.
 * Run inside the writer's transaction before it locks any row of Tasks (the lock order); `source` only reads.
 * A key lane is found through its row: a task made pending again (a retry, an edit to another queue) after
 * its key's row was pruned needs the row back, or the claim would never see its lane.
 */
export const keyRowsFor = (source: string) => `INSERT INTO readpast.ConcurrencyKeys (queue, concurrency_key, served_at)
  SELECT DISTINCT x.queue, x.concurrency_key, 0 FROM (${source}) AS x
  WHERE x.concurrency_key IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM readpast.ConcurrencyKeys AS c WITH (UPDLOCK, HOLDLOCK)
      WHERE c.queue = x.queue AND c.concurrency_key = x.concurrency_key);`;

/**
 * A queue's keys with running (a live lease) or pending tasks: most running first, then most pending (@queue,
 * @limit). Running tasks through IX_Tasks_running_key, unbatched pending ones through IX_Tasks_key_ready.
 */
export const QUEUE_KEYS = `SET NOCOUNT ON;
DECLARE @now datetime2(3) = SYSUTCDATETIME();
SELECT TOP (@limit) k.concurrency_key, SUM(k.running) AS running, SUM(k.pending) AS pending
FROM (
  SELECT t.concurrency_key, 1 AS running, 0 AS pending FROM readpast.Tasks AS t
  WHERE t.status = 'running' AND t.concurrency_key IS NOT NULL AND t.queue = @queue AND t.lease_until >= @now
  UNION ALL
  SELECT t.concurrency_key, 0, 1 FROM readpast.Tasks AS t
  WHERE t.status = 'pending' AND t.batch_id IS NULL AND t.concurrency_key IS NOT NULL AND t.queue = @queue
  UNION ALL
  SELECT t.concurrency_key, 0, 1 FROM readpast.Tasks AS t
  WHERE t.status = 'pending' AND t.batch_id IS NOT NULL AND t.concurrency_key IS NOT NULL AND t.queue = @queue
) AS k
GROUP BY k.concurrency_key
ORDER BY SUM(k.running) DESC, SUM(k.pending) DESC, k.concurrency_key;`;

/**
 * The window of a rate-limited queue now (@queue, @key: a per-key rate's key, NULL for the tasks with no key;
 * ignored for a queue-wide rate): its settings, the starts in the last period (slots used in it) and, when full,
 * when the next start is allowed — the (started − limit + 1)-th oldest start + period. No row: no rate limit.
 */
export const RATE_WINDOW = `SET NOCOUNT ON;
DECLARE @now datetime2(3) = SYSUTCDATETIME();
DECLARE @limit int = NULL, @period int = NULL, @per_key bit = 0, @started int = 0, @next datetime2(3) = NULL;
SELECT @limit = q.rate_limit, @period = q.rate_period_s, @per_key = q.rate_per_key FROM readpast.Queues AS q WHERE q.name = @queue;
DECLARE @rate_key nvarchar(200) = CASE WHEN @per_key = 1 THEN COALESCE(@key, N'') ELSE N'' END;
DECLARE @since datetime2(3) = DATEADD(SECOND, -COALESCE(@period, 0), @now);
SET @started = (SELECT COUNT(*) FROM readpast.RateSlots AS s WHERE s.queue = @queue AND s.rate_key = @rate_key AND s.used_at > @since);
IF @started >= @limit
  SELECT @next = DATEADD(SECOND, @period, x.used_at) FROM (
    SELECT s.used_at, ROW_NUMBER() OVER (ORDER BY s.used_at) AS n FROM readpast.RateSlots AS s
    WHERE s.queue = @queue AND s.rate_key = @rate_key AND s.used_at > @since) AS x
  WHERE x.n = @started - @limit + 1;
SELECT @limit AS rate_limit, @period AS rate_period_s, @per_key AS rate_per_key, @started AS started, @next AS next_at
WHERE @limit IS NOT NULL;`;

/**
 * Each queue's window for LIST_QUEUES (a queue `q`, @now): the busiest rate key's starts in the window, and
 * when that window is full, when its next start is allowed.
 */
export const RATE_USAGE_APPLY = `OUTER APPLY (SELECT TOP (1) s.rate_key, COUNT(*) AS started FROM readpast.RateSlots AS s
    WHERE s.queue = q.name AND q.rate_limit IS NOT NULL AND s.used_at > DATEADD(SECOND, -q.rate_period_s, @now)
    GROUP BY s.rate_key ORDER BY COUNT(*) DESC, s.rate_key) AS rw
OUTER APPLY (SELECT DATEADD(SECOND, q.rate_period_s, x.used_at) AS next_at FROM (
    SELECT s.used_at, ROW_NUMBER() OVER (ORDER BY s.used_at) AS n FROM readpast.RateSlots AS s
    WHERE s.queue = q.name AND s.rate_key = rw.rate_key AND s.used_at > DATEADD(SECOND, -q.rate_period_s, @now)) AS x
  WHERE rw.started >= q.rate_limit AND x.n = rw.started - q.rate_limit + 1) AS rn`;
