// SQL of throttle outside the claim (sql/claim.ts takes keys and rate slots): rate windows, key usage, the
// slots a new rate starts from, and housekeeping.

export const QUEUE_RATE = 'SELECT rate_limit, rate_period_s, rate_per_key FROM Queues WHERE name = ?';

/** The used_at of the (offset + 1)-th oldest start in a window (queue, rate_key, window start, offset). */
export const NTH_OLDEST_START = `SELECT used_at FROM RateSlots WHERE queue = ? AND rate_key = ? AND used_at > ?
      ORDER BY used_at LIMIT 1 OFFSET ?`;

/** The rate key of a queue with the most starts in the window (queue, window start). */
export const BUSIEST_RATE_KEY = `SELECT rate_key, COUNT(*) AS n FROM RateSlots WHERE queue = ? AND used_at > ?
      GROUP BY rate_key ORDER BY n DESC, rate_key LIMIT 1`;

export const DROP_QUEUE_SLOTS = 'DELETE FROM RateSlots WHERE queue = ?';

/** Attempts of a queue started after a time, newest first, with their task's key (queue, from). */
export const RECENT_STARTS = `SELECT l.task_id, l.started_at, t.concurrency_key FROM ExecutionLog l JOIN Tasks t ON t.id = l.task_id
      WHERE l.queue = ? AND l.started_at > ? ORDER BY l.started_at DESC, l.id DESC`;

/** A queue's keys with running (live lease) or pending tasks: most running first, then most pending (now, queue, limit). */
export const QUEUE_KEYS = `SELECT concurrency_key AS key,
        COALESCE(SUM(status = 'running' AND lease_until >= ?), 0) AS running, COALESCE(SUM(status = 'pending'), 0) AS pending
      FROM Tasks INDEXED BY Tasks_key_open WHERE queue = ? AND concurrency_key IS NOT NULL
        AND (status = 'pending' OR status IN ('claimed', 'running'))
      GROUP BY concurrency_key ORDER BY running DESC, pending DESC, concurrency_key LIMIT ?`;

/** Rows of keys with no pending or running task left. */
export const PRUNE_KEYS = `DELETE FROM ConcurrencyKeys AS k WHERE NOT EXISTS (SELECT 1 FROM Tasks t INDEXED BY Tasks_key_open
      WHERE t.queue = k.queue
      AND t.concurrency_key = k.concurrency_key AND (t.status = 'pending' OR t.status IN ('claimed', 'running')))`;

/**
 * Slots of queues with no rate limit, and every slot of a (queue, rate_key) none of whose slots is in the window
 * (now): a window's slots go all at once, never leaving a gap below the highest.
 */
export const PRUNE_SLOTS = `DELETE FROM RateSlots AS s WHERE NOT EXISTS (SELECT 1 FROM Queues q WHERE q.name = s.queue
      AND q.rate_limit IS NOT NULL AND EXISTS (SELECT 1 FROM RateSlots u WHERE u.queue = s.queue AND u.rate_key = s.rate_key
        AND u.used_at > ? - q.rate_period_s * 1000))`;

/**
 * In how many ms the earliest start in a rate window leaves it, among rate-limited queues with a pending task (now,
 * @queues: a JSON array or null = all), for a pool waiting on a rate limit.
 */
export const NEXT_RATE_OPENING = `SELECT MIN(s.used_at + q.rate_period_s * 1000) - @now AS ms
      FROM RateSlots s JOIN Queues q ON q.name = s.queue
      WHERE q.rate_limit IS NOT NULL AND s.used_at > @now - q.rate_period_s * 1000
        AND (@queues IS NULL OR s.queue IN (SELECT value FROM json_each(@queues)))
        AND EXISTS (SELECT 1 FROM Tasks t WHERE t.status = 'pending' AND t.queue = s.queue)`;
