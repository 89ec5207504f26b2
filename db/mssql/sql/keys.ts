// T-SQL of concurrency keys and rate windows (migration 19): the ConcurrencyKeys rows every writer that makes a
// task pending keeps, a queue's keys by running and pending tasks, a rate window now, and their pruning.
// Lock order (sql/claim.ts): ConcurrencyKeys comes after Batches and before Tasks; RateSlots after
// ConcurrencyTokens. Only the claim writes RateSlots (and pruning: PRUNE_REST, maintenance.ts).
import { MAX_CONCURRENCY_KEY_LENGTH } from '../../../lib/engine/limits';
import { ESCALATION_CHUNK } from './chunks';

const BIN2 = 'COLLATE Latin1_General_100_BIN2';
/** the next step of a path's rest (`.name…` or `[n]…`): a property name, or an index as OPENJSON names it */
const STEP_END = `CASE WHEN LEFT(w.rest, 1) = N'[' THEN CHARINDEX(N']', w.rest)
      ELSE COALESCE(NULLIF((SELECT MIN(p.at) FROM (VALUES (CHARINDEX(N'.', w.rest, 2)), (CHARINDEX(N'[', w.rest, 2))) AS p (at)
        WHERE p.at > 0), 0) - 1, LEN(w.rest)) END`;

/**
 * The keys a queue's key_from finds in payloads: `source` selects (ord, payload, key_from); leaves @walk (ord, val)
 * with the key of each that has one (a string, number or boolean, as JSON writes it; an object, a list, null,
 * an empty string or nothing found gives none, as keyOf in lib/engine/keys.ts). The path (`$` then `.name` or
 * `[n]` steps, lib/engine/keys.ts KEY_FROM) is walked a step at a time with OPENJSON, never given to JSON_VALUE,
 * which SQL Server 2016 takes only as a literal: a statement holding JSON_VALUE(payload, key_from) would not compile
 * there, keyed queue or not. One UPDATE per step (a path has at most 100), each row of @walk at most once.
 */
export const walkKeys = (
  source: string,
) => `DECLARE @walk TABLE (ord int NOT NULL PRIMARY KEY, val nvarchar(max) ${BIN2} NULL, vtype int NOT NULL,
  rest nvarchar(200) ${BIN2} NOT NULL, n int NOT NULL);
DECLARE @walk_n int = 0;
INSERT INTO @walk (ord, val, vtype, rest, n)
  SELECT x.ord, x.payload, CASE WHEN LEFT(LTRIM(x.payload), 1) = N'[' THEN 4 ELSE 5 END, SUBSTRING(x.key_from, 2, 200), 0
  FROM (${source}) AS x
  WHERE x.key_from IS NOT NULL AND x.payload IS NOT NULL AND LEFT(LTRIM(x.payload), 1) IN (N'{', N'[');
WHILE EXISTS (SELECT 1 FROM @walk AS w WHERE w.rest <> N'')
BEGIN
  SET @walk_n = @walk_n + 1;
  UPDATE w SET val = j.value, vtype = j.type, rest = SUBSTRING(w.rest, ${STEP_END} + 1, 200), n = @walk_n
    FROM @walk AS w
    -- a scalar never reaches OPENJSON (it is not JSON text), whatever order the filters run in
    CROSS APPLY OPENJSON(CASE WHEN w.vtype IN (4, 5) AND w.rest <> N'' THEN w.val ELSE N'[]' END) AS j
    WHERE w.rest <> N'' AND w.vtype IN (4, 5)
      AND j.[key] = CASE WHEN LEFT(w.rest, 1) = N'['
        THEN CAST(CAST(SUBSTRING(w.rest, 2, CHARINDEX(N']', w.rest) - 2) AS int) AS nvarchar(10))
        ELSE SUBSTRING(w.rest, 2, ${STEP_END} - 1) END ${BIN2};
  -- a step not found, or a scalar before the path's end: no key
  DELETE FROM @walk WHERE rest <> N'' AND n < @walk_n;
END;
DELETE FROM @walk WHERE vtype NOT IN (1, 2, 3) OR val IS NULL OR val = N'';`;

/**
 * A scheduled task's key (after walkKeys of its schedule's payload as ord 0): a key longer than
 * MAX_CONCURRENCY_KEY_LENGTH gives none (a fire is not refused for its payload; it is never cut either).
 */
export const SCHEDULE_KEY = `(SELECT w.val FROM @walk AS w WHERE w.ord = 0 AND LEN(w.val + N'x') - 1 <= ${MAX_CONCURRENCY_KEY_LENGTH})`;

/** walkKeys of a schedule's payload by its queue's key_from (schedule @name). */
export const SCHEDULE_WALK = walkKeys(`SELECT 0 AS ord, s.payload, q.key_from FROM readpast.Schedules AS s
    JOIN readpast.Queues AS q ON q.name = s.queue WHERE s.name = @name`);

/**
 * The ConcurrencyKeys rows the tasks `source` selects (a SELECT of queue, concurrency_key) will be pending under:
 * a missing one inserted (served_at 0: its key is served first), its range held by UPDLOCK, HOLDLOCK so that two
 * writers of one new key cannot both insert it, and so that pruning cannot delete a row a pending task needs.
 * Run inside the writer's transaction before it locks any row of Tasks (the lock order); `source` only reads.
 * A key lane is found through its row: a task made pending again (a retry, an edit to another queue) after
 * its key's row was pruned needs the row back, or the claim would never see its lane.
 */
export const keyRowsFor = (
  source: string,
) => `DECLARE @kr TABLE (rn int NOT NULL PRIMARY KEY, queue nvarchar(64) COLLATE Latin1_General_100_BIN2 NOT NULL,
  concurrency_key nvarchar(200) COLLATE Latin1_General_100_BIN2 NOT NULL);
DECLARE @kr_at int = 0, @kr_last int;
INSERT INTO @kr (rn, queue, concurrency_key)
  SELECT ROW_NUMBER() OVER (ORDER BY y.queue, y.concurrency_key), y.queue, y.concurrency_key
  FROM (SELECT DISTINCT x.queue, x.concurrency_key FROM (${source}) AS x WHERE x.concurrency_key IS NOT NULL) AS y;
-- ${ESCALATION_CHUNK} keys per statement (their range locks count toward escalation: sql/chunks.ts)
SET @kr_last = (SELECT COALESCE(MAX(k.rn), 0) FROM @kr AS k);
WHILE @kr_at < @kr_last
BEGIN
  INSERT INTO readpast.ConcurrencyKeys (queue, concurrency_key, served_at)
    SELECT k.queue, k.concurrency_key, 0 FROM @kr AS k
    WHERE k.rn > @kr_at AND k.rn <= @kr_at + ${ESCALATION_CHUNK}
      AND NOT EXISTS (SELECT 1 FROM readpast.ConcurrencyKeys AS c WITH (UPDLOCK, HOLDLOCK)
        WHERE c.queue = k.queue AND c.concurrency_key = k.concurrency_key);
  SET @kr_at = @kr_at + ${ESCALATION_CHUNK};
END;`;

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

/**
 * In how many ms the earliest start in a rate window leaves it, among rate-limited queues with a pending task
 * (@queues: a JSON array or NULL = all), for a pool waiting on a rate limit. Plain reads: no lock kept.
 */
export const NEXT_RATE_OPENING = `SET NOCOUNT ON;
DECLARE @now datetime2(3) = SYSUTCDATETIME();
SELECT MIN(DATEDIFF_BIG(MILLISECOND, @now, DATEADD(SECOND, q.rate_period_s, s.used_at))) AS ms
FROM readpast.RateSlots AS s JOIN readpast.Queues AS q ON q.name = s.queue
WHERE q.rate_limit IS NOT NULL AND s.used_at > DATEADD(SECOND, -q.rate_period_s, @now)
  AND (@queues IS NULL OR s.queue IN (SELECT w.value FROM OPENJSON(@queues) AS w))
  AND EXISTS (SELECT 1 FROM readpast.Tasks AS t WHERE t.status = 'pending' AND t.queue = s.queue);`;
