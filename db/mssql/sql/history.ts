// T-SQL of the history rollups (migration 8). Every writing batch collects what it did in @hist (declared
// by BEGIN, sql/tally.ts: one row per enqueued task, started attempt, ended attempt) and TALLY adds it to
// one HistoryMinutes row per (minute, queue, command) of the writer's slot (@@SPID % 16, as Metrics and
// QueueCounts: readers sum the slots). Housekeeping rolls finished quarter hours into HistoryRollup at
// four levels — (queue, command), (queue, all), (all, command), (all, all), "all" being N'' — and into the
// cumulative HistoryTotals (never pruned: the Prometheus counters). Column lists come from SUM_COLS.
import { ALL, COUNT_COLS, HIST_BOUNDS_MS, HISTORY_COMMAND_MAX, SUM_COLS } from '../../../lib/engine/history';

const MAXED = new Set(['dur_max', 'lat_max']);
const cols = SUM_COLS.join(', ');
const ENDED = "('succeeded', 'failed', 'dead')";
/** the histogram bucket of @hist's ms (-1 when it has none) */
const WHENS = HIST_BOUNDS_MS.map((b, i) => `WHEN x.ms <= ${b} THEN ${i}`).join(' ');
const BUCKET = `CASE WHEN x.ms IS NULL THEN -1 ${WHENS} ELSE ${HIST_BOUNDS_MS.length} END`;

/** The @hist row's command: a handler's or procedure's name; every sql task is (sql) (its text is no name). */
export const historyCommandOf = (kind: string, command: string) =>
  `CASE WHEN ${kind} = 'sql' THEN N'(sql)' ELSE LEFT(${command}, ${HISTORY_COMMAND_MAX}) END`;

/** Metrics.dead (migration 8; also run by migration 6 before it creates the procedures that bump it). */
export const METRICS_DEAD_COLUMN = `IF COL_LENGTH(N'readpast.Metrics', N'dead') IS NULL
  ALTER TABLE readpast.Metrics ADD dead int NOT NULL CONSTRAINT DF_Metrics_dead DEFAULT 0;`;

/** The table variable every writing batch fills (declared in BEGIN). */
export const DECLARE_HIST = `DECLARE @hist TABLE (queue nvarchar(64) COLLATE Latin1_General_100_BIN2 NOT NULL,
  command nvarchar(${HISTORY_COMMAND_MAX}) COLLATE Latin1_General_100_BIN2 NOT NULL, kind varchar(10) NOT NULL, ms bigint NULL);`;

const aggregate = (c: string): string => {
  if (c === 'enqueued' || c === 'started' || c === 'succeeded' || c === 'dead') return `SUM(CASE WHEN h.kind = '${c}' THEN 1 ELSE 0 END)`;
  if (c === 'failed') return "SUM(CASE WHEN h.kind IN ('failed', 'dead') THEN 1 ELSE 0 END)";
  if (c === 'dur_n') return `SUM(CASE WHEN h.kind IN ${ENDED} AND h.ms IS NOT NULL THEN 1 ELSE 0 END)`;
  if (c === 'dur_sum') return `SUM(CASE WHEN h.kind IN ${ENDED} THEN COALESCE(h.ms, 0) ELSE 0 END)`;
  if (c === 'dur_max') return `COALESCE(MAX(CASE WHEN h.kind IN ${ENDED} THEN h.ms END), 0)`;
  if (c === 'lat_sum') return "SUM(CASE WHEN h.kind = 'started' THEN COALESCE(h.ms, 0) ELSE 0 END)";
  if (c === 'lat_max') return "COALESCE(MAX(CASE WHEN h.kind = 'started' THEN h.ms END), 0)";
  const i = Number(c.slice(1));
  return c.startsWith('d')
    ? `SUM(CASE WHEN h.kind IN ${ENDED} AND h.b = ${i} THEN 1 ELSE 0 END)`
    : `SUM(CASE WHEN h.kind = 'started' AND h.b = ${i} THEN 1 ELSE 0 END)`;
};
const addTo = (t: string, x: string) =>
  SUM_COLS.map((c) =>
    MAXED.has(c) ? `${c} = CASE WHEN ${t}.${c} > ${x}.${c} THEN ${t}.${c} ELSE ${x}.${c} END` : `${c} = ${t}.${c} + ${x}.${c}`,
  ).join(',\n      ');
const sums = (p: string) => SUM_COLS.map((c) => (MAXED.has(c) ? `MAX(${p}.${c}) AS ${c}` : `SUM(${p}.${c}) AS ${c}`)).join(', ');
const colDefs = SUM_COLS.map((c) => `${c} bigint NOT NULL`).join(', ');

/**
 * Part of TALLY (sql/tally.ts), before the metrics: add @hist to this minute's rows of the writer's slot
 * (a missing row inserted first under UPDLOCK, HOLDLOCK, as QueueCounts), then empty @hist.
 */
export const HISTORY_TALLY = `IF EXISTS (SELECT 1 FROM @hist)
BEGIN
  DECLARE @hmin bigint = DATEDIFF_BIG(MINUTE, '19700101', @now) * 60000;
  DECLARE @hx TABLE (queue nvarchar(64) COLLATE Latin1_General_100_BIN2 NOT NULL,
    command nvarchar(${HISTORY_COMMAND_MAX}) COLLATE Latin1_General_100_BIN2 NOT NULL, ${colDefs}, PRIMARY KEY (queue, command));
  DELETE FROM @hx;
  INSERT INTO @hx (queue, command, ${cols})
    SELECT h.queue, h.command, ${SUM_COLS.map(aggregate).join(',\n      ')}
    FROM (SELECT x.queue, x.command, x.kind, CASE WHEN x.ms < 0 THEN 0 ELSE x.ms END AS ms, ${BUCKET} AS b FROM @hist AS x) AS h
    GROUP BY h.queue, h.command;
  INSERT INTO readpast.HistoryMinutes (t, queue, command, slot)
    SELECT @hmin, x.queue, x.command, @slot FROM @hx AS x
    WHERE NOT EXISTS (SELECT 1 FROM readpast.HistoryMinutes AS m WITH (UPDLOCK, HOLDLOCK, FORCESEEK)
      WHERE m.t = @hmin AND m.queue = x.queue AND m.command = x.command AND m.slot = @slot);
  UPDATE m
    SET ${addTo('m', 'x')}
    FROM readpast.HistoryMinutes AS m WITH (FORCESEEK) JOIN @hx AS x ON x.queue = m.queue AND x.command = m.command
    WHERE m.t = @hmin AND m.slot = @slot;
  DELETE FROM @hist;
END;`;

/**
 * Roll the finished quarter hours not rolled yet (at most @max_ms of them) into HistoryRollup and
 * HistoryTotals, in one transaction holding HistoryState (so two processes never roll the same quarter).
 * (@roll_ms, @delay_ms, @max_ms) → (rolled_ms).
 */
export const ROLL_HISTORY = `SET NOCOUNT ON;
SET XACT_ABORT ON;
DECLARE @nowms bigint = DATEDIFF_BIG(MILLISECOND, '19700101', SYSUTCDATETIME());
DECLARE @target bigint = ((@nowms - @delay_ms) / @roll_ms) * @roll_ms;
DECLARE @from bigint;
DECLARE @r TABLE (queue nvarchar(64) COLLATE Latin1_General_100_BIN2 NOT NULL,
  command nvarchar(${HISTORY_COMMAND_MAX}) COLLATE Latin1_General_100_BIN2 NOT NULL, t bigint NOT NULL, ${colDefs},
  PRIMARY KEY (queue, command, t));
BEGIN TRANSACTION;
SELECT @from = s.rolled_until FROM readpast.HistoryState AS s WITH (UPDLOCK, HOLDLOCK) WHERE s.id = 1;
IF @from = 0
  SELECT @from = COALESCE((MIN(m.t) / @roll_ms) * @roll_ms, @target) FROM readpast.HistoryMinutes AS m;
IF @target > @from + @max_ms
  SET @target = @from + @max_ms;
IF @from < @target
BEGIN
  INSERT INTO @r (queue, command, t, ${cols})
    SELECT m.queue, m.command, m.t - (m.t % @roll_ms), ${sums('m')}
    FROM readpast.HistoryMinutes AS m WHERE m.t >= @from AND m.t < @target
    GROUP BY m.queue, m.command, m.t - (m.t % @roll_ms);
  INSERT INTO readpast.HistoryRollup (queue, command, t, ${cols})
    SELECT r.queue, r.command, r.t, ${SUM_COLS.map((c) => `r.${c}`).join(', ')} FROM @r AS r;
  INSERT INTO readpast.HistoryRollup (queue, command, t, ${cols})
    SELECT r.queue, N'${ALL}', r.t, ${sums('r')} FROM @r AS r GROUP BY r.queue, r.t;
  INSERT INTO readpast.HistoryRollup (queue, command, t, ${cols})
    SELECT N'${ALL}', r.command, r.t, ${sums('r')} FROM @r AS r GROUP BY r.command, r.t;
  INSERT INTO readpast.HistoryRollup (queue, command, t, ${cols})
    SELECT N'${ALL}', N'${ALL}', r.t, ${sums('r')} FROM @r AS r GROUP BY r.t;
  INSERT INTO readpast.HistoryTotals (queue, command)
    SELECT DISTINCT r.queue, r.command FROM @r AS r
    WHERE NOT EXISTS (SELECT 1 FROM readpast.HistoryTotals AS h WITH (UPDLOCK, HOLDLOCK)
      WHERE h.queue = r.queue AND h.command = r.command);
  UPDATE h
    SET ${addTo('h', 'x')}
    FROM readpast.HistoryTotals AS h
    JOIN (SELECT r.queue, r.command, ${sums('r')} FROM @r AS r GROUP BY r.queue, r.command) AS x
      ON x.queue = h.queue AND x.command = h.command;
  UPDATE readpast.HistoryState SET rolled_until = @target WHERE id = 1;
END;
COMMIT TRANSACTION;
SELECT CASE WHEN @target > @from THEN @target - @from ELSE 0 END AS rolled_ms;`;

export const ROLLED_UNTIL = 'SELECT s.rolled_until FROM readpast.HistoryState AS s WHERE s.id = 1;';

/** One level of the rolled rows per bucket (@bucket_ms, @queue, @command, @from_ms, @to_ms). */
export const READ_ROLLUP = `SELECT h.t - (h.t % @bucket_ms) AS b, ${sums('h')}
FROM readpast.HistoryRollup AS h
WHERE h.queue = @queue AND h.command = @command AND h.t >= @from_ms AND h.t < @to_ms
GROUP BY h.t - (h.t % @bucket_ms);`;

/** Minutes per bucket, summed over slots, optionally of one queue and/or command (NULL: all). */
export const READ_MINUTES = `SELECT h.t - (h.t % @bucket_ms) AS b, ${sums('h')}
FROM readpast.HistoryMinutes AS h
WHERE h.t >= @from_ms AND h.t < @to_ms AND (@queue IS NULL OR h.queue = @queue) AND (@command IS NULL OR h.command = @command)
GROUP BY h.t - (h.t % @bucket_ms);`;

/** The per-second series per bucket, slots summed (depth lives in slot 0: MAX). (@bucket_s, @from_sec, @to_sec) */
export const READ_SECONDS = `SELECT x.b, COUNT(*) AS n, SUM(x.enqueued) AS enqueued, SUM(x.started) AS started,
  SUM(x.succeeded) AS succeeded,
  SUM(x.failed) AS failed, SUM(x.dead) AS dead, SUM(x.lat_sum) AS lat_sum, MAX(x.lat_max) AS lat_max, MAX(x.depth) AS depth
FROM (SELECT m.sec - (m.sec % @bucket_s) AS b, m.sec, SUM(m.enqueued) AS enqueued, SUM(m.started) AS started,
        SUM(m.succeeded) AS succeeded, SUM(m.failed) AS failed, SUM(m.dead) AS dead, SUM(m.latency_sum) AS lat_sum,
        MAX(m.latency_max) AS lat_max, MAX(m.depth) AS depth
      FROM readpast.Metrics AS m WHERE m.sec >= @from_sec AND m.sec < @to_sec GROUP BY m.sec) AS x
GROUP BY x.b;`;

/**
 * Depth per bucket: the bucket's last sample, the depth as the bucket ends (@bucket_s, @from_sec, @to_sec; the gauge is
 * slot 0's, read with MAX over the second's slots). A sample is written only when the depth changed
 * (db/shared/depth.ts): a bucket without one has the one before it.
 */
export const READ_DEPTH = `SELECT x.b, x.depth FROM (
  SELECT m.sec - (m.sec % @bucket_s) AS b, MAX(m.depth) AS depth,
    ROW_NUMBER() OVER (PARTITION BY m.sec - (m.sec % @bucket_s) ORDER BY m.sec DESC) AS rn
  FROM readpast.Metrics AS m
  WHERE m.sec >= @from_sec AND m.sec < @to_sec AND m.depth IS NOT NULL
  GROUP BY m.sec) AS x
WHERE x.rn = 1;`;

/** The depth in force before a range: its last sample within the lookback (@from_sec, @lookback_sec). */
export const DEPTH_BEFORE = `SELECT TOP (1) MAX(m.depth) AS depth FROM readpast.Metrics AS m
WHERE m.sec < @from_sec AND m.sec >= @lookback_sec AND m.depth IS NOT NULL
GROUP BY m.sec
ORDER BY m.sec DESC;`;

/** Succeeded per queue and bucket (@bucket_ms, @from_ms, @to_ms). */
export const QUEUE_THROUGHPUT = `SELECT h.queue, h.t - (h.t % @bucket_ms) AS b, SUM(h.succeeded) AS n
FROM readpast.HistoryMinutes AS h WHERE h.t >= @from_ms AND h.t < @to_ms
GROUP BY h.queue, h.t - (h.t % @bucket_ms);`;

/** The names seen: every (queue, command) rolled so far and those of the minutes not rolled yet. */
export const NAMES = `DECLARE @rolled bigint = COALESCE((SELECT s.rolled_until FROM readpast.HistoryState AS s WHERE s.id = 1), 0);
SELECT h.queue, h.command FROM readpast.HistoryTotals AS h
UNION SELECT m.queue, m.command FROM readpast.HistoryMinutes AS m WHERE m.t >= @rolled;`;

/**
 * The cumulative counters of /metrics: the totals plus the minutes not rolled yet, summed in one statement
 * (one consistent read: a roll between two reads would count its quarter twice or not at all) into @t,
 * then two result sets — the five counts per (queue, command), the histograms per queue — so the wide
 * histogram columns cross the wire once per queue. Reads HistoryTotals and the last quarter hour only.
 */
export const TOTALS = `SET NOCOUNT ON;
DECLARE @t TABLE (queue nvarchar(64) COLLATE Latin1_General_100_BIN2 NOT NULL,
  command nvarchar(${HISTORY_COMMAND_MAX}) COLLATE Latin1_General_100_BIN2 NOT NULL, ${colDefs}, PRIMARY KEY (queue, command));
INSERT INTO @t (queue, command, ${cols})
SELECT x.queue, x.command, ${sums('x')}
FROM (
  SELECT h.queue, h.command, ${SUM_COLS.map((c) => `h.${c}`).join(', ')} FROM readpast.HistoryTotals AS h
  UNION ALL
  SELECT m.queue, m.command, ${SUM_COLS.map((c) => `m.${c}`).join(', ')} FROM readpast.HistoryMinutes AS m
  WHERE m.t >= COALESCE((SELECT s.rolled_until FROM readpast.HistoryState AS s WHERE s.id = 1), 0)
) AS x
GROUP BY x.queue, x.command;
SELECT t.queue, t.command, ${COUNT_COLS.map((c) => `t.${c}`).join(', ')} FROM @t AS t;
SELECT t.queue, ${sums('t')} FROM @t AS t GROUP BY t.queue;`;

/** Rollups older than the history keeps (@before_ms), in chunks. */
export const PRUNE_HISTORY = `SET NOCOUNT ON;
DECLARE @n int = 1;
WHILE @n > 0
BEGIN
  WITH doomed AS (SELECT TOP (4000) h.t FROM readpast.HistoryMinutes AS h WHERE h.t < @before_ms ORDER BY h.t)
  DELETE FROM doomed;
  SET @n = @@ROWCOUNT;
END;
SET @n = 1;
WHILE @n > 0
BEGIN
  WITH doomed AS (SELECT TOP (4000) h.t FROM readpast.HistoryRollup AS h WHERE h.t < @before_ms)
  DELETE FROM doomed;
  SET @n = @@ROWCOUNT;
END;`;
