// SQL of the claim (see claim.ts for how it runs): which queues can take work, the lanes (unbatched
// tasks and each live batch's active stage), the heads of each lane in dequeue order, Taskling's token
// grant, and the start of an attempt. The claim rules are listed in lib/engine/claim-rules.ts; their SQL
// is composed here of one fragment per rule (CLAIM_RULE_SQL).
import { LIVE_BATCH, type ClaimRuleName } from '../../../lib/engine/claim-rules';
import { HELD } from './queues';

/**
 * The claim rules in SQLite: one fragment per rule, the exact text that implements it in the statements
 * below, which are composed of them (claim-rules.test.ts: every rule has one, the claim's SQL contains it).
 * Two are partly in claim.ts's TypeScript: a paused queue and a full limit put the queue on the claim's
 * excluded list (capacity()).
 */
export const CLAIM_RULE_SQL = {
  pending: "t.status = 'pending'",
  due: 't.run_after <= @now',
  in_queue_filter: '(@queues IS NULL OR t.queue IN (SELECT value FROM json_each(@queues)))',
  // queues that fail it are read out and excluded
  queue_not_paused: 'paused = 0',
  // a queue's held tokens, compared with its limit in capacity(): running and claimed tasks with a live lease (queue, now)
  under_queue_limit: "SELECT COUNT(*) AS n FROM Tasks WHERE queue = ? AND status IN ('claimed', 'running') AND lease_until >= ?",
  // a lane's tasks are those of a row of Batches
  batch_exists: 't.batch_id = x.id',
  batch_live: `b.status IN (${LIVE_BATCH.map((s) => `'${s}'`).join(', ')})`,
  stage_active: '(SELECT MIN(s.stage) FROM BatchStages s WHERE s.batch_id = b.id AND s.pending + s.running > 0)',
  not_after_failed_stage: "NOT (x.on_failure = 'abort' AND x.failed_stage IS NOT NULL AND x.stage > x.failed_stage)",
  under_batch_max_parallel: '(x.max_parallel IS NULL OR x.running < x.max_parallel)',
  // a key's running and claimed tasks with a live lease (queue, concurrency_key, now), compared with the queue's per_key_limit
  under_key_limit: `SELECT COUNT(*) AS n FROM Tasks INDEXED BY Tasks_key_open WHERE queue = ? AND concurrency_key = ?
      AND (status = 'pending' OR status IN ('claimed', 'running'))
      AND status IN ('claimed', 'running') AND lease_until >= ?`,
  // attempts started in a rate window (queue, rate_key, now − period), compared with the queue's rate_limit
  under_rate_limit: 'SELECT COUNT(*) AS n FROM RateSlots WHERE queue = ? AND rate_key = ? AND used_at > ?',
} as const satisfies Record<ClaimRuleName, string>;
const R = CLAIM_RULE_SQL;

// ---- capacity: paused queues and limited queues with no room left are skipped ------------------------

export const PAUSED_OR_LIMITED_QUEUES = `SELECT name, concurrency_limit, paused, rate_limit, rate_period_s, rate_per_key FROM Queues
      WHERE NOT (${R.queue_not_paused}) OR concurrency_limit IS NOT NULL OR rate_limit IS NOT NULL`;

/**
 * Running tasks of a queue with a live lease (queue, now), token or not: a task claimed while its queue
 * was unlimited holds no token but counts against a limit set later (no new grant until running < limit).
 * Matches the index Tasks_running.
 */
export const RUNNING_LIVE = R.under_queue_limit;

/** Running tasks of a (queue, key) with a live lease (queue, concurrency_key, now): a seek of Tasks_key_open. */
export const KEY_RUNNING = R.under_key_limit;

// ---- lanes and their heads ------------------------------------------------------------------------

export const STAGE_PENDING = 'SELECT pending FROM BatchStages WHERE batch_id = ? AND stage = ?';

const HEAD_COLUMNS = `t.id, t.token, t.queue, t.kind, t.command, t.payload, t.priority, t.attempts, t.max_attempts, t.timeout_ms,
  t.created_at, t.run_after, t.batch_id, t.stage, t.concurrency_key, t.parent_count, t.trace_parent, t.trace_state, t.attempt_trace`;

/** Skips the excluded queues (a JSON array) and, when @queues (a JSON array) is given, every other queue. */
const QUEUE_FILTER = `AND t.queue NOT IN (SELECT value FROM json_each(@excluded))
  AND ${R.in_queue_filter}`;

/** Whether the per-key rate window of a key (SQL expressions) of queue row `q` is full (@now). */
const keyRateFull = (q: string, queue: string, key: string) => `(${q}.rate_limit IS NOT NULL AND ${q}.rate_per_key = 1
          AND (SELECT COUNT(*) FROM RateSlots s WHERE s.queue = ${queue} AND s.rate_key = ${key}
            AND s.used_at > @now - ${q}.rate_period_s * 1000) >= ${q}.rate_limit)`;

/**
 * A task (`t`) throttle lets start now (@now, @noKey): a task with no key outside the queues whose window of
 * the tasks with no key is full; a keyed one under its queue's per-key limit and with room in its key's rate window.
 */
const THROTTLE_OK = `(CASE WHEN t.concurrency_key IS NULL THEN t.queue NOT IN (SELECT value FROM json_each(@noKey))
        ELSE NOT EXISTS (SELECT 1 FROM Queues fq WHERE fq.name = t.queue AND ((fq.per_key_limit IS NOT NULL
          AND (SELECT COUNT(*) FROM Tasks r INDEXED BY Tasks_key_open WHERE r.queue = t.queue AND r.concurrency_key = t.concurrency_key
            AND (r.status = 'pending' OR r.status IN ('claimed', 'running')) AND r.status IN ('claimed', 'running')
            AND r.lease_until >= @now) >= fq.per_key_limit)
          OR ${keyRateFull('fq', 't.queue', 't.concurrency_key')})) END)`;

/** At most this many batch lanes per claim round. */
export const MAX_LANES = 500;

/**
 * Batches with a task to claim now, least recently served first (@now, @excluded, @queues), with their
 * active stage and running count: live, under their maxParallel, not past a failed stage of an aborted
 * batch, and with a due task of the active stage in a queue the claim may take from. Filtered before the
 * LIMIT, so batches that wait (nothing due, at their sync point, full) never crowd out one that can run.
 */
export const LIVE_BATCHES = `SELECT x.id, x.max_parallel, x.served_at, x.stage, x.running FROM (
        SELECT b.id, b.max_parallel, b.on_failure, b.served_at,
          ${R.stage_active} AS stage,
          (SELECT COALESCE(SUM(s.running), 0) FROM BatchStages s WHERE s.batch_id = b.id) AS running,
          (SELECT MIN(s.stage) FROM BatchStages s WHERE s.batch_id = b.id AND s.dead > 0) AS failed_stage
        FROM Batches b WHERE ${R.batch_live}) x
      WHERE x.stage IS NOT NULL
        AND ${R.under_batch_max_parallel}
        AND ${R.not_after_failed_stage}
        AND EXISTS (SELECT 1 FROM Tasks t WHERE ${R.pending} AND ${R.batch_exists} AND t.stage = x.stage
          AND t.batch_id IS NOT NULL AND ${R.due} ${QUEUE_FILTER} AND ${THROTTLE_OK})
      ORDER BY x.served_at, x.id LIMIT ${MAX_LANES}`;

/**
 * The due unbatched tasks with no concurrency key in dequeue order (@now, @excluded, @queues, @limit, and
 * @noKey: queues whose per-key rate window of the tasks with no key is full); matches the index Tasks_dequeue.
 */
export const UNBATCHED_HEADS = `SELECT ${HEAD_COLUMNS} FROM Tasks t WHERE ${R.pending} AND t.batch_id IS NULL AND t.concurrency_key IS NULL
        AND ${R.due} ${QUEUE_FILTER} AND t.queue NOT IN (SELECT value FROM json_each(@noKey))
        ORDER BY t.priority DESC, t.id LIMIT @limit`;

/** The pending unbatched tasks of one key (`k` a row of ConcurrencyKeys), due now, in dequeue order. */
const KEY_TASKS = `${R.pending} AND t.batch_id IS NULL AND t.queue = k.queue AND t.concurrency_key = k.concurrency_key AND ${R.due}`;

/**
 * Key lanes: the keys of the queues the claim may take from with a due unbatched task, under their queue's
 * per-key limit and per-key rate window, least recently served first, with their running tasks (live lease)
 * and their best due task (its id) (@now, @excluded, @queues, @limit). Filtered before the LIMIT, so
 * full keys never crowd out one that can run.
 */
export const KEY_LANES = `SELECT k.queue, k.concurrency_key, k.served_at, q.per_key_limit,
        (SELECT t.id FROM Tasks t INDEXED BY Tasks_key_dequeue WHERE ${KEY_TASKS} ORDER BY t.priority DESC, t.id LIMIT 1) AS head_id,
        CASE WHEN q.per_key_limit IS NULL THEN 0 ELSE (SELECT COUNT(*) FROM Tasks r INDEXED BY Tasks_key_open WHERE r.queue = k.queue
          AND r.concurrency_key = k.concurrency_key AND (r.status = 'pending' OR r.status IN ('claimed', 'running'))
          AND r.status IN ('claimed', 'running')
          AND r.lease_until >= @now) END AS running
      FROM ConcurrencyKeys k JOIN Queues q ON q.name = k.queue
      WHERE k.queue NOT IN (SELECT value FROM json_each(@excluded))
        AND (@queues IS NULL OR k.queue IN (SELECT value FROM json_each(@queues)))
        AND head_id IS NOT NULL
        AND (q.per_key_limit IS NULL OR running < q.per_key_limit)
        AND NOT ${keyRateFull('q', 'k.queue', 'k.concurrency_key')}
      ORDER BY k.served_at, k.queue, k.concurrency_key LIMIT @limit`;

/** Whether any key has a row (a keyed task pending or running, or not yet pruned): else no key lane is read. */
export const ANY_KEY = 'SELECT 1 AS one FROM ConcurrencyKeys LIMIT 1';

/** The heads of the key lanes, read at once (a JSON array of task ids). */
export const HEADS_BY_ID = `SELECT ${HEAD_COLUMNS} FROM Tasks t WHERE t.id IN (SELECT value FROM json_each(?))`;

/** The due unbatched tasks of one key in dequeue order (@queue, @key, @now, @limit); matches Tasks_key_dequeue. */
export const KEY_HEADS = `SELECT ${HEAD_COLUMNS} FROM Tasks t INDEXED BY Tasks_key_dequeue
        WHERE ${R.pending} AND t.batch_id IS NULL AND t.queue = @queue
        AND t.concurrency_key = @key AND ${R.due} ORDER BY t.priority DESC, t.id LIMIT @limit`;

/** A key served now (served_at, queue, concurrency_key): it goes to the back of the turns. */
export const MARK_KEY_SERVED = 'UPDATE ConcurrencyKeys SET served_at = ? WHERE queue = ? AND concurrency_key = ?';

/** The due tasks of one batch's stage in dequeue order (@batch, @stage, @now, …); matches Tasks_batch_dequeue. */
export const BATCH_HEADS = `SELECT ${HEAD_COLUMNS} FROM Tasks t WHERE ${R.pending} AND t.batch_id = @batch AND t.stage = @stage
          AND t.batch_id IS NOT NULL AND ${R.due} ${QUEUE_FILTER} AND ${THROTTLE_OK} ORDER BY t.priority DESC, t.id LIMIT @limit`;

export const MARK_SERVED = 'UPDATE Batches SET served_at = ? WHERE id = ?';

// ---- Taskling's token grant, in the claim's transaction ----------------------------------------------

/** Write the queue row first: its lock column serialises grants for this queue (queue). */
export const LOCK_QUEUE = 'UPDATE Queues SET lock_version = lock_version + 1 WHERE name = ? RETURNING concurrency_limit';

/** Tokens of a queue up to its limit (queue, limit). */
export const COUNT_TOKENS = 'SELECT COUNT(*) AS n FROM ConcurrencyTokens WHERE queue = ? AND token_no <= ?';

export const ADD_TOKEN = 'INSERT INTO ConcurrencyTokens (queue, token_no) VALUES (?, ?) ON CONFLICT (queue, token_no) DO NOTHING';

/** Drop tokens above the limit that are free or whose grantee lost its task (queue, limit, now). */
export const DROP_TOKENS_ABOVE_LIMIT = `DELETE FROM ConcurrencyTokens AS c WHERE c.queue = ? AND c.token_no > ? AND (c.status = 'free'
      OR NOT EXISTS (SELECT 1 FROM Tasks t WHERE t.id = c.task_id AND ${HELD}))`;

/** The lowest token that is free, or whose grantee lost its task (queue, limit, now). */
export const GRANTABLE_TOKEN = `SELECT c.token_no FROM ConcurrencyTokens c WHERE c.queue = ? AND c.token_no <= ?
      AND (c.status = 'free' OR NOT EXISTS (SELECT 1 FROM Tasks t WHERE t.id = c.task_id AND ${HELD}))
      ORDER BY c.token_no LIMIT 1`;

/** (task_id, attempt, worker_id, granted_at, queue, token_no) */
export const GRANT_TOKEN = `UPDATE ConcurrencyTokens SET status = 'granted', task_id = ?, attempt = ?, worker_id = ?, granted_at = ?
      WHERE queue = ? AND token_no = ?`;

// ---- the start of an attempt ------------------------------------------------------------------------

/** (attempts, worker_id, token_no, lease_until, started_at, id) */
export const START_TASK = `UPDATE Tasks SET status = 'running', attempts = ?, worker_id = ?, token_no = ?, lease_until = ?, started_at = ?,
      cancel_requested = 0 WHERE id = ?`;

/**
 * A task claimed ahead: held by its claimer's lease, not started (worker_id, token_no, lease_until, id) — no attempt
 * counted and no ExecutionLog row until a slot starts it (settle.ts); `started_at` stays its last attempt's.
 */
export const CLAIM_AHEAD = `UPDATE Tasks SET status = 'claimed', worker_id = ?, token_no = ?, lease_until = ?, cancel_requested = 0
      WHERE id = ?`;

/** (task_id, attempt, queue, kind, command, worker_id, session, token_no, batch_id, stage, started_at) */
export const LOG_ATTEMPT = `INSERT INTO ExecutionLog (task_id, attempt, queue, kind, command, worker_id, session, token_no, batch_id, stage,
      started_at, outcome)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'running')`;

export const QUEUE_BACKOFF = 'SELECT backoff_ms FROM Queues WHERE name = ?';

/** A queue's throttle (name). */
export const QUEUE_THROTTLE = 'SELECT per_key_limit, rate_limit, rate_period_s, rate_per_key FROM Queues WHERE name = ?';

// ---- rate slots, in the claim's transaction (throttle.ts) -----------------------------------------------

export const RATE_STARTED = R.under_rate_limit;

/** The slot of (queue, rate_key) numbered up to the limit used longest ago (queue, rate_key, limit): the RateSlots_used order. */
export const OLDEST_SLOT = `SELECT slot_no, used_at FROM RateSlots WHERE queue = ? AND rate_key = ? AND +slot_no <= ?
      ORDER BY used_at LIMIT 1`;

/** The highest slot number of (queue, rate_key) up to a bound (queue, rate_key, bound). */
export const MAX_SLOT = 'SELECT COALESCE(MAX(slot_no), 0) AS n FROM RateSlots WHERE queue = ? AND rate_key = ? AND slot_no <= ?';

/** Take a slot (queue, rate_key, slot_no, used_at, task_id), creating it if new. */
export const TAKE_SLOT = `INSERT INTO RateSlots (queue, rate_key, slot_no, used_at, task_id) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (queue, rate_key, slot_no) DO UPDATE SET used_at = excluded.used_at, task_id = excluded.task_id`;

/** Slots above a lowered limit that have left the window (queue, rate_key, limit, window start). */
export const DROP_SLOTS_ABOVE = 'DELETE FROM RateSlots WHERE queue = ? AND rate_key = ? AND slot_no > ? AND used_at <= ?';
