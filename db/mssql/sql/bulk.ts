// T-SQL of bulk commands on tasks — a chunk of tokens (JSON array @tokens, at most BULK_CHUNK) per batch,
// one transaction — and of editing a task that is not running. Every status change goes through the kept
// counts (sql/tally.ts). Lock order (sql/claim.ts): what a retry reads of Batches and BatchStages it reads
// before taking any lock; then the rows of the keys its tasks will be pending under (ConcurrencyKeys); then
// Tasks, ExecutionLog, the kept counts. Each returns (done, found), then the
// touched batches.
import { DELETE_ATTEMPT_LOGS, DELETE_EDGES, heldCount, neededByChild, PAST_ABORT, RETRY_CANDIDATES } from './operators';
import { cancelUnfinished, DECLARE_CANCELLED, DECLARE_EDGES, REARM_CHILDREN, RETRIED_STATUS } from './edges';
import { BEGIN, DECLARE_MOVES, MOVES_TO_DELTAS, TALLY, TOUCHED } from './tally';
import { keyRowsFor } from './keys';

/** The chunk's tokens (@k) and how many of them name a task (@found), read before anything changes. */
const TOKENS = `DECLARE @k TABLE (token uniqueidentifier NOT NULL PRIMARY KEY);
INSERT INTO @k (token)
  SELECT DISTINCT TRY_CONVERT(uniqueidentifier, j.value) FROM OPENJSON(@tokens) AS j
  WHERE TRY_CONVERT(uniqueidentifier, j.value) IS NOT NULL;
DECLARE @found int = (SELECT COUNT(*) FROM readpast.Tasks AS t WHERE t.token IN (SELECT k.token FROM @k AS k));
DECLARE @done int = 0;`;

const RESULT = `SELECT @done AS done, @found AS found;
${TOUCHED}`;

/** The tasks of a bulk retry: as operators.ts retry, over @k. */
const BULK_RETRY_WHERE = `t.token IN (SELECT k.token FROM @k AS k) AND t.status IN ('dead', 'cancelled')
      AND (t.batch_id IS NULL OR NOT EXISTS (SELECT 1 FROM readpast.Batches AS b
        WHERE b.id = t.batch_id AND b.status IN ('completed', 'cancelled')))`;

/**
 * dead or cancelled → pending (one more attempt if used up): the newest per dedup key, its key free.
 * Returns (done, found, held: see heldCount), then the touched batches.
 */
export const BULK_RETRY = `${BEGIN}
${DECLARE_MOVES}
${DECLARE_EDGES}
${TOKENS}
DECLARE @cand TABLE (id bigint NOT NULL PRIMARY KEY);
INSERT INTO @cand (id)
  SELECT c.id FROM (
    SELECT t.id, t.dedup_key, ROW_NUMBER() OVER (PARTITION BY t.dedup_key ORDER BY t.id DESC) AS rn
    FROM readpast.Tasks AS t
    WHERE ${BULK_RETRY_WHERE}
      AND NOT (${PAST_ABORT})
  ) AS c
  WHERE (c.dedup_key IS NULL OR c.rn = 1)
    AND NOT EXISTS (SELECT 1 FROM readpast.Tasks AS o
      WHERE o.dedup_key = c.dedup_key AND o.dedup_key IS NOT NULL AND o.status IN ('waiting', 'pending', 'running'));
${heldCount(BULK_RETRY_WHERE)}
BEGIN TRANSACTION;
${keyRowsFor('SELECT t.queue, t.concurrency_key FROM readpast.Tasks AS t JOIN @cand AS c ON c.id = t.id WHERE t.batch_id IS NULL')}
${RETRY_CANDIDATES}
SET @done = (SELECT COUNT(*) FROM @moves);
${REARM_CHILDREN}
${MOVES_TO_DELTAS}
${TALLY}
COMMIT TRANSACTION;
SELECT @done AS done, @found AS found, @held AS held;
${TOUCHED}`;

/** waiting or pending → cancelled (their children's policies applied); running → cancel requested (counted as done). */
export const BULK_CANCEL = `${BEGIN}
${DECLARE_MOVES}
${DECLARE_EDGES}
${TOKENS}
${DECLARE_CANCELLED}
BEGIN TRANSACTION;
${cancelUnfinished('readpast.Tasks AS t JOIN @k AS k ON k.token = t.token', '1 = 1')}
SET @done = (SELECT COUNT(*) FROM @o);
${MOVES_TO_DELTAS}
${TALLY}
COMMIT TRANSACTION;
${RESULT}`;

/** Finished tasks go, with their log rows. */
export const BULK_DELETE = `${BEGIN}
${DECLARE_MOVES}
${TOKENS}
BEGIN TRANSACTION;
DELETE FROM readpast.Tasks
  OUTPUT deleted.id, deleted.queue, deleted.batch_id, deleted.stage, deleted.status, NULL, NULL, NULL, NULL INTO @moves
  WHERE token IN (SELECT k.token FROM @k AS k) AND status IN ('succeeded', 'dead', 'cancelled')
    AND NOT ${neededByChild('readpast.Tasks.id')};
SET @done = @@ROWCOUNT;
${DELETE_ATTEMPT_LOGS}
${DELETE_EDGES}
${MOVES_TO_DELTAS}
${TALLY}
COMMIT TRANSACTION;
${RESULT}`;

/** Scheduled or retrying pending tasks become due now. */
export const BULK_RUN_NOW = `${BEGIN}
${DECLARE_MOVES}
${TOKENS}
UPDATE t SET run_after = @now
  FROM readpast.Tasks AS t JOIN @k AS k ON k.token = t.token
  WHERE t.status = 'pending' AND t.run_after > @now;
SET @done = @@ROWCOUNT;
${RESULT}`;

/** Pending, dead or cancelled tasks get @priority. */
export const BULK_PRIORITY = `${BEGIN}
${DECLARE_MOVES}
${TOKENS}
UPDATE t SET priority = @priority
  FROM readpast.Tasks AS t JOIN @k AS k ON k.token = t.token
  WHERE t.status IN ('pending', 'dead', 'cancelled');
SET @done = @@ROWCOUNT;
${RESULT}`;

/**
 * Rewrite one task that is not running, if it still has @from_status: @queue (created if new), @payload
 * (when @set_payload = 1), @priority, @run_after (NULL: kept, or now when retried), @max_attempts (at least
 * one more than used when it will be pending); @retry = 1 puts a dead or cancelled task back to pending —
 * not one of a finished batch, past an aborted stage, or whose dedup key a live task holds. The kept counts
 * follow the status and the queue. Returns (edited), then the touched batches.
 */
export const EDIT_TASK = `${BEGIN}
${DECLARE_MOVES}
${DECLARE_EDGES}
DECLARE @o TABLE (id bigint NOT NULL PRIMARY KEY, old_queue nvarchar(64) COLLATE Latin1_General_100_BIN2 NOT NULL,
  new_queue nvarchar(64) COLLATE Latin1_General_100_BIN2 NOT NULL, batch_id bigint NULL, stage int NULL,
  from_status varchar(10) NOT NULL, to_status varchar(10) NOT NULL);
DECLARE @may_retry bit = 1;
IF @retry = 1 AND EXISTS (SELECT 1 FROM readpast.Tasks AS t WHERE t.token = @token
    AND ((t.batch_id IS NOT NULL AND EXISTS (SELECT 1 FROM readpast.Batches AS b
        WHERE b.id = t.batch_id AND b.status IN ('completed', 'cancelled')))
      OR ${PAST_ABORT}))
  SET @may_retry = 0;
BEGIN TRANSACTION;
IF NOT EXISTS (SELECT 1 FROM readpast.Queues AS q WITH (UPDLOCK, HOLDLOCK) WHERE q.name = @queue)
  INSERT INTO readpast.Queues (name) VALUES (@queue);
-- the key's row in the queue the task will be pending in (a retry, or a move to another queue)
${keyRowsFor(`SELECT @queue AS queue, t.concurrency_key FROM readpast.Tasks AS t
    WHERE t.token = @token AND t.batch_id IS NULL AND (@retry = 1 OR t.status = 'pending')`)}
UPDATE t
  SET queue = @queue,
      payload = CASE WHEN @set_payload = 1 THEN @payload ELSE t.payload END,
      priority = @priority,
      run_after = COALESCE(@run_after, CASE WHEN @retry = 1 THEN @now ELSE t.run_after END),
      max_attempts = CASE WHEN (@retry = 1 OR t.status = 'pending') AND @max_attempts < t.attempts + 1 THEN t.attempts + 1
        ELSE @max_attempts END,
      status = CASE WHEN @retry = 1 THEN ${RETRIED_STATUS} ELSE t.status END,
      finished_at = CASE WHEN @retry = 1 THEN NULL ELSE t.finished_at END,
      blocked_by = CASE WHEN @retry = 1 THEN NULL ELSE t.blocked_by END,
      suspended = CASE WHEN @retry = 1 THEN NULL ELSE t.suspended END,
      cancel_requested = 0
  OUTPUT inserted.id, deleted.queue, inserted.queue, inserted.batch_id, inserted.stage, deleted.status, inserted.status INTO @o
  FROM readpast.Tasks AS t
  WHERE t.token = @token AND t.status = @from_status AND t.status <> 'running'
    AND (@retry = 0 OR (@may_retry = 1 AND NOT EXISTS (SELECT 1 FROM readpast.Tasks AS d
      WHERE d.dedup_key = t.dedup_key AND d.dedup_key IS NOT NULL AND d.status IN ('waiting', 'pending', 'running'))));
INSERT INTO @moves (id, queue, batch_id, stage, from_status, to_status)
  SELECT o.id, o.old_queue, o.batch_id, o.stage, o.from_status, o.to_status FROM @o AS o WHERE o.from_status <> o.to_status;
${REARM_CHILDREN}
${MOVES_TO_DELTAS}
INSERT INTO @delta (queue, status, n)
  SELECT x.queue, o.to_status, 0 FROM @o AS o CROSS APPLY (VALUES (o.old_queue), (o.new_queue)) AS x (queue)
  WHERE o.old_queue <> o.new_queue
    AND NOT EXISTS (SELECT 1 FROM @delta AS d WHERE d.queue = x.queue AND d.status = o.to_status);
UPDATE d SET n = d.n + CASE WHEN d.queue = o.new_queue THEN 1 ELSE -1 END
  FROM @delta AS d JOIN @o AS o ON d.status = o.to_status AND (d.queue = o.new_queue OR d.queue = o.old_queue)
  WHERE o.old_queue <> o.new_queue;
${TALLY}
COMMIT TRANSACTION;
SELECT COUNT(*) AS edited FROM @o;
${TOUCHED}`;
