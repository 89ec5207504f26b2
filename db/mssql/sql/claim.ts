// The claim: one due task for one worker, on that worker's own connection, in one short
// transaction (nothing stays open while the task runs).
//
// Lanes, as in the SQLite store: unbatched tasks form one lane, each live batch another (its active
// stage only, while under its maxParallel); the highest-priority head wins, ties going to the lane
// served least recently, so one large batch cannot starve another. Paused queues and limited queues
// with every token held are skipped, so they block nobody else.
//
// For the chosen lane and the head's queue, in the lock order of every writer (Queues → Batches →
// Tasks → ConcurrencyTokens → ExecutionLog → BatchStages → QueueCounts → Metrics):
//  1. a limited queue: write its row first (Taskling's lock column serialises grants of this queue
//     across every process), bring its tokens in line with the limit, find a free token or skip;
//  2. a batch: lock its row (serialises its claims); if another claim served it meanwhile, choose
//     again (that keeps lanes alternating); else re-check its active stage and room;
//  3. the claim proper: a CTE picks the row in dequeue order from the filtered index (its
//     `status = 'pending'` and `batch_id IS [NOT] NULL` literals match the index filters),
//     skipping rows others hold (READPAST) and locking it (UPDLOCK; ROWLOCK keeps it a row lock;
//     READCOMMITTEDLOCK keeps READPAST legal under READ_COMMITTED_SNAPSHOT); updated with OUTPUT INTO;
//  4. the token is granted to the attempt; the attempt is logged; counts and metrics are kept.
// A lane or queue that yields nothing is set aside and the next best is tried (a few rounds at most).
import { BEGIN, TALLY, TOUCHED } from './tally';

export const CLAIM_ROUNDS = 6;

/** Rows a lane's head may come from (no locks kept: the CTE below takes the real one). */
const HEAD_FILTER = `t.run_after <= @now
            AND NOT EXISTS (SELECT 1 FROM @excluded AS x WHERE x.queue = t.queue)
            AND (@all_queues = 1 OR t.queue IN (SELECT w.queue FROM @wanted AS w))`;

const CLAIM_COLUMNS = `t.id, t.token, t.queue, t.kind, t.command, t.payload, t.priority, t.status, t.attempts, t.max_attempts,
        t.timeout_ms, t.created_at, t.run_after, t.started_at, t.worker_id, t.token_no, t.lease_until, t.cancel_requested,
        t.batch_id, t.stage`;

const CLAIM_SET = `SET status = 'running', attempts = attempts + 1, worker_id = @worker_id, token_no = @tok,
          lease_until = DATEADD(MILLISECOND, @lease_ms, @now), started_at = @now, cancel_requested = 0
        OUTPUT inserted.id, inserted.token, inserted.queue, inserted.kind, inserted.command, inserted.payload,
          inserted.priority, inserted.attempts, inserted.max_attempts, inserted.timeout_ms, inserted.created_at,
          inserted.run_after, inserted.started_at, inserted.token_no, inserted.batch_id, inserted.stage
        INTO @claimed`;

/**
 * Parameters: @worker_id, @lease_ms, @queues (JSON array or NULL = every queue), @unbatched_served
 * (when this process last served the unbatched lane, µs since 1970). Returns the claimed task (0 or
 * 1 row, with @@SPID and the served stamp), then the touched batches.
 */
export const CLAIM = `${BEGIN}
DECLARE @claimed TABLE (
  id bigint NOT NULL PRIMARY KEY, token uniqueidentifier NOT NULL, queue nvarchar(64) NOT NULL, kind varchar(10) NOT NULL,
  command nvarchar(max) NOT NULL, payload nvarchar(max) NULL, priority int NOT NULL, attempts int NOT NULL,
  max_attempts int NOT NULL, timeout_ms int NULL, created_at datetime2(3) NOT NULL, run_after datetime2(3) NOT NULL,
  started_at datetime2(3) NOT NULL, token_no int NULL, batch_id bigint NULL, stage int NULL);
DECLARE @excluded TABLE (queue nvarchar(64) NOT NULL PRIMARY KEY);
DECLARE @skipped TABLE (lane bigint NOT NULL, queue nvarchar(64) NOT NULL, PRIMARY KEY (lane, queue));
DECLARE @wanted TABLE (queue nvarchar(64) NOT NULL PRIMARY KEY);
DECLARE @lanes TABLE (batch_id bigint NOT NULL PRIMARY KEY, stage int NOT NULL, served_at bigint NOT NULL);
DECLARE @all_queues bit = CASE WHEN @queues IS NULL THEN 1 ELSE 0 END;
DECLARE @stamp bigint = NULL, @lane_served bigint, @served_now bigint;
DECLARE @done bit = 0, @rounds int = 0, @ok bit, @lane bigint, @lane_stage int, @queue nvarchar(64), @limit int, @tok int;
IF @all_queues = 0
  INSERT INTO @wanted (queue) SELECT DISTINCT CAST(j.value AS nvarchar(64)) FROM OPENJSON(@queues) AS j
  WHERE j.value IS NOT NULL;
BEGIN TRANSACTION;
-- a first cut, skipping rows others hold (step 1 checks again under the queue's lock)
INSERT INTO @excluded (queue)
  SELECT q.name FROM readpast.Queues AS q WITH (READPAST, READCOMMITTEDLOCK)
  WHERE q.paused = 1 OR (q.concurrency_limit IS NOT NULL AND q.concurrency_limit <= (
    SELECT COUNT(*) FROM readpast.ConcurrencyTokens AS c WITH (READPAST, READCOMMITTEDLOCK)
    JOIN readpast.Tasks AS t WITH (READPAST, READCOMMITTEDLOCK) ON t.id = c.task_id
    WHERE c.queue = q.name AND c.status = 'granted' AND t.status = 'running' AND t.attempts = c.attempt
      AND t.lease_until >= @now));
INSERT INTO @lanes (batch_id, stage, served_at)
  SELECT TOP (500) b.id, st.stage, b.served_at
  FROM readpast.Batches AS b
  CROSS APPLY (SELECT MIN(CASE WHEN s.pending + s.running > 0 THEN s.stage END) AS stage,
                      COALESCE(SUM(s.running), 0) AS running,
                      MIN(CASE WHEN s.dead > 0 THEN s.stage END) AS failed_stage
               FROM readpast.BatchStages AS s WHERE s.batch_id = b.id) AS st
  WHERE b.status IN ('open', 'released', 'aborted') AND st.stage IS NOT NULL
    AND (b.max_parallel IS NULL OR st.running < b.max_parallel)
    AND NOT (b.on_failure = 'abort' AND st.failed_stage IS NOT NULL AND st.stage > st.failed_stage)
  ORDER BY b.served_at, b.id;
WHILE @done = 0 AND @rounds < ${CLAIM_ROUNDS}
BEGIN
  SET @rounds = @rounds + 1;
  SET @lane = NULL;
  SET @lane_stage = NULL;
  SET @queue = NULL;
  SELECT TOP (1) @lane = h.lane, @lane_stage = h.stage, @queue = h.queue, @lane_served = h.served_at
  FROM (
    SELECT CAST(-1 AS bigint) AS lane, CAST(NULL AS int) AS stage, u.queue, u.priority, @unbatched_served AS served_at, u.id
    FROM (SELECT TOP (1) t.queue, t.priority, t.id FROM readpast.Tasks AS t WITH (READPAST, READCOMMITTEDLOCK)
          WHERE t.status = 'pending' AND t.batch_id IS NULL AND ${HEAD_FILTER}
            AND NOT EXISTS (SELECT 1 FROM @skipped AS k WHERE k.lane = -1 AND k.queue = t.queue)
          ORDER BY t.priority DESC, t.id) AS u
    UNION ALL
    SELECT l.batch_id, l.stage, bh.queue, bh.priority, l.served_at, bh.id
    FROM @lanes AS l
    CROSS APPLY (SELECT TOP (1) t.queue, t.priority, t.id FROM readpast.Tasks AS t WITH (READPAST, READCOMMITTEDLOCK)
          WHERE t.status = 'pending' AND t.batch_id IS NOT NULL AND t.batch_id = l.batch_id AND t.stage = l.stage
            AND ${HEAD_FILTER}
            AND NOT EXISTS (SELECT 1 FROM @skipped AS k WHERE k.lane = l.batch_id AND k.queue = t.queue)
          ORDER BY t.priority DESC, t.id) AS bh
  ) AS h
  ORDER BY h.priority DESC, h.served_at, h.id;
  IF @lane IS NULL
    SET @done = 1;
  ELSE
  BEGIN
    SET @ok = 1;
    SET @tok = NULL;
    SET @limit = NULL;
    -- 1. a limited queue: its row first, then its tokens
    UPDATE readpast.Queues SET lock_version = lock_version + 1, @limit = concurrency_limit
      WHERE name = @queue AND concurrency_limit IS NOT NULL;
    IF @limit IS NOT NULL
    BEGIN
      IF (SELECT COUNT(*) FROM readpast.ConcurrencyTokens AS c WHERE c.queue = @queue AND c.token_no <= @limit) < @limit
        INSERT INTO readpast.ConcurrencyTokens (queue, token_no, status)
          SELECT @queue, n.n, 'free'
          FROM (SELECT TOP (@limit) CAST(ROW_NUMBER() OVER (ORDER BY (SELECT NULL)) AS int) AS n
                FROM (VALUES (0), (0), (0), (0), (0), (0), (0), (0), (0), (0)) AS a (x)
                CROSS JOIN (VALUES (0), (0), (0), (0), (0), (0), (0), (0), (0), (0)) AS b (x)
                CROSS JOIN (VALUES (0), (0), (0), (0), (0), (0), (0), (0), (0), (0)) AS c (x)
                CROSS JOIN (VALUES (0), (0), (0), (0), (0), (0), (0), (0), (0), (0)) AS d (x)) AS n
          WHERE NOT EXISTS (SELECT 1 FROM readpast.ConcurrencyTokens AS c WHERE c.queue = @queue AND c.token_no = n.n);
      DELETE c FROM readpast.ConcurrencyTokens AS c
        WHERE c.queue = @queue AND c.token_no > @limit
          AND (c.status = 'free' OR NOT EXISTS (SELECT 1 FROM readpast.Tasks AS t WHERE t.id = c.task_id
            AND t.status = 'running' AND t.attempts = c.attempt AND t.lease_until >= @now));
      IF (SELECT COUNT(*) FROM readpast.ConcurrencyTokens AS c JOIN readpast.Tasks AS t ON t.id = c.task_id
          WHERE c.queue = @queue AND c.status = 'granted' AND t.status = 'running' AND t.attempts = c.attempt
            AND t.lease_until >= @now) < @limit
        SELECT TOP (1) @tok = c.token_no FROM readpast.ConcurrencyTokens AS c
          WHERE c.queue = @queue AND c.token_no <= @limit
            AND (c.status = 'free' OR NOT EXISTS (SELECT 1 FROM readpast.Tasks AS t WHERE t.id = c.task_id
              AND t.status = 'running' AND t.attempts = c.attempt AND t.lease_until >= @now))
          ORDER BY c.token_no;
      IF @tok IS NULL
      BEGIN
        SET @ok = 0;
        INSERT INTO @excluded (queue) SELECT @queue WHERE NOT EXISTS (SELECT 1 FROM @excluded AS x WHERE x.queue = @queue);
      END;
    END;
    -- 2. a batch: its row (held until commit: one claim of this batch at a time), then, under that
    --    lock, whether another claim served it meanwhile (choose again: fairness), and its active
    --    stage and room once more
    IF @ok = 1 AND @lane <> -1
    BEGIN
      SET @served_now = NULL;
      SELECT @served_now = b.served_at FROM readpast.Batches AS b WITH (UPDLOCK, HOLDLOCK) WHERE b.id = @lane;
      IF @served_now IS NULL OR @served_now <> @lane_served
      BEGIN
        SET @ok = 0;
        UPDATE @lanes SET served_at = @served_now WHERE batch_id = @lane AND @served_now IS NOT NULL;
        DELETE FROM @lanes WHERE batch_id = @lane AND @served_now IS NULL;
      END
      ELSE IF NOT EXISTS (SELECT 1 FROM readpast.Batches AS b
          CROSS APPLY (SELECT MIN(CASE WHEN s.pending + s.running > 0 THEN s.stage END) AS stage,
                              COALESCE(SUM(s.running), 0) AS running,
                              MIN(CASE WHEN s.dead > 0 THEN s.stage END) AS failed_stage
                       FROM readpast.BatchStages AS s WHERE s.batch_id = b.id) AS st
          WHERE b.id = @lane AND b.status IN ('open', 'released', 'aborted') AND st.stage = @lane_stage
            AND (b.max_parallel IS NULL OR st.running < b.max_parallel)
            AND NOT (b.on_failure = 'abort' AND st.failed_stage IS NOT NULL AND st.stage > st.failed_stage))
      BEGIN
        SET @ok = 0;
        DELETE FROM @lanes WHERE batch_id = @lane;
      END;
    END;
    -- 3. the claim proper
    IF @ok = 1 AND @lane = -1
    BEGIN
      DELETE FROM @claimed;
      WITH pick AS (
        SELECT TOP (1) ${CLAIM_COLUMNS}
        FROM readpast.Tasks AS t WITH (ROWLOCK, READPAST, UPDLOCK, READCOMMITTEDLOCK)
        WHERE t.status = 'pending' AND t.batch_id IS NULL AND t.queue = @queue AND t.run_after <= @now
        ORDER BY t.priority DESC, t.id
      )
      UPDATE pick
        ${CLAIM_SET};
    END;
    IF @ok = 1 AND @lane <> -1
    BEGIN
      DELETE FROM @claimed;
      WITH pick AS (
        SELECT TOP (1) ${CLAIM_COLUMNS}
        FROM readpast.Tasks AS t WITH (ROWLOCK, READPAST, UPDLOCK, READCOMMITTEDLOCK)
        WHERE t.status = 'pending' AND t.batch_id IS NOT NULL AND t.batch_id = @lane AND t.stage = @lane_stage
          AND t.queue = @queue AND t.run_after <= @now
        ORDER BY t.priority DESC, t.id
      )
      UPDATE pick
        ${CLAIM_SET};
    END;
    IF @ok = 1
    BEGIN
      IF EXISTS (SELECT 1 FROM @claimed)
      BEGIN
        SET @done = 1;
        -- the lane was served now (strictly later than any earlier stamp)
        SET @stamp = DATEDIFF_BIG(MICROSECOND, '19700101', SYSUTCDATETIME());
        IF @lane <> -1
        BEGIN
          UPDATE readpast.Batches SET served_at = CASE WHEN @stamp > served_at THEN @stamp ELSE served_at + 1 END
            WHERE id = @lane;
          SELECT @stamp = b.served_at FROM readpast.Batches AS b WHERE b.id = @lane;
        END;
      END
      ELSE
        INSERT INTO @skipped (lane, queue) SELECT @lane, @queue
        WHERE NOT EXISTS (SELECT 1 FROM @skipped AS k WHERE k.lane = @lane AND k.queue = @queue);
    END;
  END;
END;
IF EXISTS (SELECT 1 FROM @claimed)
BEGIN
  -- 4. grant the token, log the attempt, keep the counts
  UPDATE c SET status = 'granted', task_id = x.id, attempt = x.attempts, worker_id = @worker_id, granted_at = @now
    FROM readpast.ConcurrencyTokens AS c JOIN @claimed AS x ON x.queue = c.queue AND x.token_no = c.token_no;
  INSERT INTO readpast.ExecutionLog (task_id, attempt, queue, kind, command, worker_id, session, token_no, batch_id, stage,
      started_at, outcome)
    SELECT c.id, c.attempts, c.queue, c.kind, c.command, @worker_id, @@SPID, c.token_no, c.batch_id, c.stage, @now, 'running'
    FROM @claimed AS c;
  UPDATE s SET first_started_at = @now
    FROM readpast.BatchStages AS s JOIN @claimed AS c ON c.batch_id = s.batch_id AND c.stage = s.stage
    WHERE s.first_started_at IS NULL;
  INSERT INTO @delta (queue, status, n)
    SELECT c.queue, s.status, CASE WHEN s.status = 'pending' THEN -1 ELSE 1 END
    FROM @claimed AS c CROSS JOIN (VALUES ('pending'), ('running')) AS s (status);
  INSERT INTO @sdelta (batch_id, stage, status, n)
    SELECT c.batch_id, c.stage, s.status, CASE WHEN s.status = 'pending' THEN -1 ELSE 1 END
    FROM @claimed AS c CROSS JOIN (VALUES ('pending'), ('running')) AS s (status)
    WHERE c.batch_id IS NOT NULL;
  SELECT @m_started = COUNT(*),
         @m_lsum = COALESCE(SUM(DATEDIFF_BIG(MILLISECOND, c.run_after, @now)), 0),
         @m_lmax = COALESCE(MAX(CASE WHEN DATEDIFF_BIG(MILLISECOND, c.run_after, @now) > 2147483647 THEN 2147483647
           ELSE CAST(DATEDIFF_BIG(MILLISECOND, c.run_after, @now) AS int) END), 0)
    FROM @claimed AS c;
${TALLY}
END;
COMMIT TRANSACTION;
SELECT c.id, c.token, c.queue, c.kind, c.command, c.payload, c.priority, c.attempts, c.max_attempts, c.timeout_ms,
  c.created_at, c.run_after, c.started_at, c.token_no, c.batch_id, c.stage, COALESCE(q.backoff_ms, 1000) AS backoff_ms,
  @@SPID AS session, @stamp AS served_stamp
FROM @claimed AS c LEFT JOIN readpast.Queues AS q ON q.name = c.queue;
${TOUCHED}`;
