// SQL of the history rollups (migration 6): the per-minute upsert of the tally, the quarter-hour roll,
// the reads, pruning. Column lists are built once from SUM_COLS (lib/engine/history.ts); values are bound.
import { ALL, COUNT_COLS, SUM_COLS } from '../../../lib/engine/history';

const MAXED = new Set(['dur_max', 'lat_max']);
const cols = SUM_COLS.join(', ');
const marks = SUM_COLS.map(() => '?').join(', ');
const addExcluded = SUM_COLS.map((c) => (MAXED.has(c) ? `${c} = MAX(${c}, excluded.${c})` : `${c} = ${c} + excluded.${c}`)).join(', ');
/** SUM(x) AS x for each counter (MAX for the maxima) */
const sums = (p = '') => SUM_COLS.map((c) => (MAXED.has(c) ? `MAX(${p}${c}) AS ${c}` : `SUM(${p}${c}) AS ${c}`)).join(', ');

/** Add one transaction's counts to a minute of a (queue, command): (t, queue, command, …SUM_COLS). */
export const ADD_HISTORY = `INSERT INTO HistoryMinutes (t, queue, command, ${cols}) VALUES (?, ?, ?, ${marks})
  ON CONFLICT (t, queue, command) DO UPDATE SET ${addExcluded}`;

/** Add created tasks to a minute of a (queue, command), nothing else of it: (t, queue, command, enqueued). */
export const ADD_ENQUEUED_HISTORY = `INSERT INTO HistoryMinutes (t, queue, command, enqueued) VALUES (?, ?, ?, ?)
  ON CONFLICT (t, queue, command) DO UPDATE SET enqueued = enqueued + excluded.enqueued`;

export const ROLLED_UNTIL = 'SELECT rolled_until FROM HistoryState WHERE id = 1';
export const SET_ROLLED_UNTIL = 'UPDATE HistoryState SET rolled_until = ? WHERE id = 1';
/** The first minute kept (where a first roll starts). */
export const FIRST_MINUTE = 'SELECT MIN(t) AS t FROM HistoryMinutes';

const rollLevel = (queue: string, command: string, group: string) => `INSERT INTO HistoryRollup (queue, command, t, ${cols})
  SELECT ${queue}, ${command}, t - (t % ?), ${sums()} FROM HistoryMinutes WHERE t >= ? AND t < ? GROUP BY ${group}
  ON CONFLICT (queue, command, t) DO UPDATE SET ${addExcluded}`;

/** Roll [from, to) into quarter hours, one statement per level: (roll_ms, from, to). */
export const ROLL_QUEUE_COMMAND = rollLevel('queue', 'command', '1, 2, 3');
export const ROLL_QUEUE = rollLevel('queue', `'${ALL}'`, '1, 3');
export const ROLL_COMMAND = rollLevel(`'${ALL}'`, 'command', '2, 3');
export const ROLL_ALL = rollLevel(`'${ALL}'`, `'${ALL}'`, '3');

/** Add [from, to) to the cumulative totals (from, to). */
export const ADD_TOTALS = `INSERT INTO HistoryTotals (queue, command, ${cols})
  SELECT queue, command, ${sums()} FROM HistoryMinutes WHERE t >= ? AND t < ? GROUP BY queue, command
  ON CONFLICT (queue, command) DO UPDATE SET ${addExcluded}`;

/** One level of the rolled rows per bucket (bucket_ms, queue, command, from, to). */
export const READ_ROLLUP = `SELECT t - (t % ?) AS b, ${sums()} FROM HistoryRollup
  WHERE queue = ? AND command = ? AND t >= ? AND t < ? GROUP BY b`;

/** Minutes per bucket, optionally of one queue and/or command (bucket_ms, from, to, queue, queue, command, command). */
export const READ_MINUTES = `SELECT t - (t % ?) AS b, ${sums()} FROM HistoryMinutes
  WHERE t >= ? AND t < ? AND (? IS NULL OR queue = ?) AND (? IS NULL OR command = ?) GROUP BY b`;

/** The per-second series per bucket (bucket_s, from_sec, to_sec). */
export const READ_SECONDS = `SELECT sec - (sec % ?) AS b, COUNT(*) AS n, SUM(enqueued) AS enqueued, SUM(started) AS started,
  SUM(succeeded) AS succeeded, SUM(failed) AS failed, SUM(dead) AS dead, SUM(latency_sum) AS lat_sum,
  MAX(latency_max) AS lat_max, MAX(depth) AS depth FROM Metrics WHERE sec >= ? AND sec < ? GROUP BY b`;

/**
 * Depth per bucket: the bucket's last sample, the depth as the bucket ends (bucket_s, bucket_s, from_sec, to_sec). A
 * sample is written only when the depth changed (db/shared/depth.ts): a bucket without one has the one before it.
 */
export const READ_DEPTH = `SELECT b, depth FROM (SELECT sec - (sec % ?) AS b, depth,
    ROW_NUMBER() OVER (PARTITION BY sec - (sec % ?) ORDER BY sec DESC) AS rn
  FROM Metrics WHERE sec >= ? AND sec < ? AND depth IS NOT NULL) WHERE rn = 1`;

/** The depth in force before a range: its last sample in the lookback (from_sec, lookback_from_sec). */
export const DEPTH_BEFORE = 'SELECT depth FROM Metrics WHERE sec < ? AND sec >= ? AND depth IS NOT NULL ORDER BY sec DESC LIMIT 1';

/** Succeeded per queue and bucket (bucket_ms, from, to). */
export const QUEUE_THROUGHPUT = `SELECT queue, t - (t % ?) AS b, SUM(succeeded) AS n FROM HistoryMinutes
  WHERE t >= ? AND t < ? GROUP BY queue, b`;

/** The names seen: every (queue, command) rolled so far, and those of the minutes not rolled yet (from). */
export const NAMES = `SELECT queue, command FROM HistoryTotals
  UNION SELECT DISTINCT queue, command FROM HistoryMinutes WHERE t >= ?`;

const counts = COUNT_COLS.join(', ');
/**
 * The counters per (queue, command) as /metrics reads them: the rolled totals plus the minutes not rolled
 * yet (rolled_until) — five columns, never the rolled history itself.
 */
export const COMMAND_TOTALS = `SELECT queue, command, ${COUNT_COLS.map((c) => `SUM(${c})`).join(', ')} FROM (
  SELECT queue, command, ${counts} FROM HistoryTotals
  UNION ALL SELECT queue, command, ${counts} FROM HistoryMinutes WHERE t >= ?
) GROUP BY queue, command`;
/**
 * The histograms per queue, summed over its commands: of the rolled totals (in their key's order: no sort),
 * and of the minutes not rolled yet (rolled_until). Two reads of one transaction, added per queue.
 */
export const QUEUE_TOTALS = `SELECT queue, ${sums()} FROM HistoryTotals GROUP BY queue`;
export const QUEUE_UNROLLED = `SELECT queue, ${sums()} FROM HistoryMinutes WHERE t >= ? GROUP BY queue`;

export const PRUNE_MINUTES = 'DELETE FROM HistoryMinutes WHERE t < ?';
export const PRUNE_ROLLUP = 'DELETE FROM HistoryRollup WHERE t < ?';
