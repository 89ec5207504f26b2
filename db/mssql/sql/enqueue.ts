// T-SQL of producers: enqueue one or many tasks in one transaction.
// Every batch that writes more than one row runs in one short transaction with XACT_ABORT ON
// (any error rolls it back and ends the batch; the SET reverts when sp_executesql returns).
//
// Lock order: the one of every writer, written down in sql/claim.ts (Schedules → Queues → Batches →
// ConcurrencyKeys → Tasks → ConcurrencyTokens → RateSlots → ExecutionLog → BatchStages → QueueCounts → Metrics
// → QueueChanges). Here: new queues are created and every queue's defaults (and key_from) read first, before
// any batch is locked (reading a queue while holding a batch would wait for a claim that holds the queue and
// waits for the batch); then the batches; then the tasks' keys (a missing ConcurrencyKeys row inserted, its
// range held by UPDLOCK, HOLDLOCK so that two enqueues of one new key cannot both insert it); then the tasks;
// the kept counts and metrics last (a new queue's count rows with them: the tally creates a missing row),
// touched in key order (a @delta table keyed like QueueCounts; one Metrics row per transaction), so their hot
// rows are held briefly. (A settlement never locks Batches: completing
// or aborting a batch is a transaction of its own, SETTLE_BATCHES in settle.ts, run right after.)
//
// Lock escalation (sql/chunks.ts): the threshold counts locks per statement, not per transaction, so the keys, the
// tasks (up to 10,000: a flow) and the edges (~20,000) go ESCALATION_CHUNK rows per statement inside the one
// transaction that keeps the enqueue atomic, and so do the parents' locks (sql/enqueue-deps.ts).
import { BEGIN, DECLARE_MOVES, MOVES_TO_DELTAS, TALLY } from './tally';
import { historyCommandOf } from './history';
import { MAX_CONCURRENCY_KEY_LENGTH } from '../../../lib/engine/limits';
import { walkKeys } from './keys';
import { DECLARE_DEPS, INSERT_EDGES, LINK_PARENTS } from './enqueue-deps';
import { ESCALATION_CHUNK } from './chunks';

/**
 * The enqueue, installed as readpast.Enqueue_<hash> (sql/hot.ts: its results as JSON in @results), which the
 * store and readpast.ExecAsync (sql/callers.ts) both call, so the T-SQL callers' enqueue and the store's
 * cannot drift. Leaves @in (ord, token, existing, …).
 * Enqueue a JSON array of tasks (one or many) in one transaction. Each element:
 * {ord, token, queue, kind, command, payload (JSON text|null), priority, runAfter ('YYYY-MM-DDTHH:MM:SS.mmm' UTC|null),
 *  maxAttempts|null, timeoutGiven (0|1), timeoutMs|null, dedupKey|null, caller|null, batchId|null, stage|null,
 *  concurrencyKey|null, flowNode|null, dependsOn: [{n, token|null, ord|null, onParentFailure}]|null, traceParent, traceState
 *  (the W3C context the task carries; absent: none)}; @flow_id: the flow
 * its tasks are the nodes of (NULL: none). A dependency names an existing task by token, or (a flow's node) a task
 * of this call by ord; sql/enqueue-deps.ts links them.
 * A task without a concurrencyKey gets the one its queue's key_from finds in its payload (walkKeys, sql/keys.ts: a
 * string, number or boolean; an empty one is none); a key over MAX_CONCURRENCY_KEY_LENGTH characters, given or found,
 * fails the whole call (error 51005) — never cut: two different values must not become one key.
 * A dedup key held by a live task returns that task's token; a key repeated within the array returns the
 * first one's token.
 * A batch that does not exist, no longer takes tasks, or has started a later stage fails the whole call
 * (errors 51001 / 51002 / 51003).
 */
export const ENQUEUE_WRITE = `${BEGIN}
${DECLARE_MOVES}
DECLARE @in TABLE (
  ord int NOT NULL PRIMARY KEY, token uniqueidentifier NOT NULL, queue nvarchar(64) COLLATE Latin1_General_100_BIN2 NOT NULL,
  kind varchar(10) NOT NULL, command nvarchar(max) NOT NULL, payload nvarchar(max) NULL, priority int NOT NULL,
  run_after datetime2(3) NULL, max_attempts int NULL, timeout_given bit NOT NULL, timeout_ms int NULL,
  dedup_key nvarchar(200) COLLATE Latin1_General_100_BIN2 NULL, caller nvarchar(200) NULL, batch_id bigint NULL, stage int NULL,
  concurrency_key nvarchar(4000) COLLATE Latin1_General_100_BIN2 NULL, key_from nvarchar(200) NULL, existing bit NOT NULL,
  flow_id bigint NULL, flow_node nvarchar(100) COLLATE Latin1_General_100_BIN2 NULL, parent_count int NOT NULL DEFAULT 0,
  parents_left int NOT NULL DEFAULT 0, blocked_by bigint NULL, error_message nvarchar(4000) NULL, task_id bigint NULL,
  trace_parent varchar(55) NULL, trace_state varchar(512) NULL);
INSERT INTO @in (ord, token, queue, kind, command, payload, priority, run_after, max_attempts, timeout_given, timeout_ms,
    dedup_key, caller, batch_id, stage, concurrency_key, existing, flow_id, flow_node, trace_parent, trace_state)
  SELECT j.ord, j.token, j.queue, j.kind, j.command, j.payload, j.priority, j.run_after, j.max_attempts, j.timeout_given,
    j.timeout_ms, j.dedup_key, j.caller, j.batch_id, j.stage, j.concurrency_key, 0, @flow_id, j.flow_node, j.trace_parent,
    j.trace_state
  FROM OPENJSON(@tasks) WITH (
    ord int '$.ord', token uniqueidentifier '$.token', queue nvarchar(64) '$.queue', kind varchar(10) '$.kind',
    command nvarchar(max) '$.command', payload nvarchar(max) '$.payload', priority int '$.priority',
    run_after datetime2(3) '$.runAfter', max_attempts int '$.maxAttempts', timeout_given bit '$.timeoutGiven',
    timeout_ms int '$.timeoutMs', dedup_key nvarchar(200) '$.dedupKey', caller nvarchar(200) '$.caller',
    batch_id bigint '$.batchId', stage int '$.stage', concurrency_key nvarchar(4000) '$.concurrencyKey',
    flow_node nvarchar(100) '$.flowNode', trace_parent varchar(55) '$.traceParent', trace_state varchar(512) '$.traceState') AS j;
${DECLARE_DEPS}
DECLARE @from int = 0, @last int = (SELECT MAX(i.ord) FROM @in AS i);
BEGIN TRANSACTION;
-- the queues first: new ones created, then every task's defaults read from its queue
IF EXISTS (SELECT 1 FROM @in AS i WHERE NOT EXISTS (SELECT 1 FROM readpast.Queues AS q WHERE q.name = i.queue))
  INSERT INTO readpast.Queues (name)
    SELECT DISTINCT i.queue FROM @in AS i
    WHERE NOT EXISTS (SELECT 1 FROM readpast.Queues AS q WITH (UPDLOCK, HOLDLOCK) WHERE q.name = i.queue);
UPDATE i SET max_attempts = COALESCE(i.max_attempts, q.max_attempts),
    timeout_ms = CASE WHEN i.timeout_given = 1 THEN i.timeout_ms ELSE q.timeout_ms END,
    key_from = q.key_from
  FROM @in AS i JOIN readpast.Queues AS q ON q.name = i.queue;
-- keys derived by the queue's keyFrom (a longer one is kept long enough to be refused below, never cut to fit)
${walkKeys('SELECT i.ord, i.payload, i.key_from FROM @in AS i WHERE i.concurrency_key IS NULL')}
UPDATE i SET concurrency_key = LEFT(w.val, ${MAX_CONCURRENCY_KEY_LENGTH + 1}) FROM @in AS i JOIN @walk AS w ON w.ord = i.ord;
DECLARE @bad bigint = NULL, @msg nvarchar(2048);
SELECT TOP (1) @bad = i.ord,
    @msg = CONCAT(N'the concurrency key', CASE WHEN q.key_from IS NULL THEN N'' ELSE CONCAT(N' at ', q.key_from) END,
      N' is longer than ${MAX_CONCURRENCY_KEY_LENGTH} characters')
  FROM @in AS i LEFT JOIN readpast.Queues AS q ON q.name = i.queue
  WHERE LEN(i.concurrency_key + N'x') - 1 > ${MAX_CONCURRENCY_KEY_LENGTH} ORDER BY i.ord;
IF @bad IS NOT NULL THROW 51005, @msg, 1;
-- the batches tasks go into: locked (so they cannot be released or cancelled meanwhile), and open
DECLARE @bstatus TABLE (id bigint NOT NULL PRIMARY KEY, status varchar(10) NOT NULL);
IF EXISTS (SELECT 1 FROM @in AS i WHERE i.batch_id IS NOT NULL)
BEGIN
  INSERT INTO @bstatus (id, status)
    SELECT b.id, b.status FROM readpast.Batches AS b WITH (UPDLOCK, HOLDLOCK)
    WHERE b.id IN (SELECT i.batch_id FROM @in AS i WHERE i.batch_id IS NOT NULL);
  SELECT TOP (1) @bad = i.batch_id FROM @in AS i
    WHERE i.batch_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM @bstatus AS b WHERE b.id = i.batch_id);
  IF @bad IS NOT NULL
  BEGIN
    SET @msg = CONCAT(N'no batch ', @bad);
    THROW 51001, @msg, 1;
  END;
  SELECT TOP (1) @bad = b.id, @msg = CONCAT(N'batch ', b.id, N' is ', b.status, N'; only an open batch takes new tasks')
    FROM @bstatus AS b WHERE b.status <> 'open';
  IF @bad IS NOT NULL THROW 51002, @msg, 1;
  -- tasks of a later stage started believing every earlier stage was done: no new task may go before them
  SELECT TOP (1) @bad = i.batch_id,
      @msg = CONCAT(N'stage ', s.stage, N' of batch ', i.batch_id, N' has already started; add tasks to stage ', s.stage, N' or later')
    FROM @in AS i
    CROSS APPLY (SELECT MIN(x.stage) AS stage FROM readpast.BatchStages AS x
                 WHERE x.batch_id = i.batch_id AND x.stage > i.stage AND x.first_started_at IS NOT NULL) AS s
    WHERE i.batch_id IS NOT NULL AND s.stage IS NOT NULL
    ORDER BY i.ord;
  IF @bad IS NOT NULL THROW 51003, @msg, 1;
END;
-- one enqueue of a dedup key at a time: an application lock per key (in key order, so two enqueues of the
-- same keys cannot deadlock), held until COMMIT. A concurrent enqueue of the same key waits here until this
-- one commits (or rolls back); its lookup below, a statement of its own, then reads the committed task (under
-- RCSI too) and returns that token, instead of inserting too and failing on UX_Tasks_dedup (2601) — which
-- inside readpast.ExecAsync would roll back the caller's transaction. Applocks touch no row or index lock, so
-- the lock order above holds. Resource names compare binary, as dedup keys do.
DECLARE @dedup TABLE (n int IDENTITY(1, 1) PRIMARY KEY, dedup_key nvarchar(200) COLLATE Latin1_General_100_BIN2 NOT NULL);
INSERT INTO @dedup (dedup_key) SELECT DISTINCT i.dedup_key FROM @in AS i WHERE i.dedup_key IS NOT NULL ORDER BY i.dedup_key;
DECLARE @dedup_n int = 1, @dedup_last int = (SELECT COUNT(*) FROM @dedup), @dedup_resource nvarchar(255);
WHILE @dedup_n <= @dedup_last
BEGIN
  SET @dedup_resource = (SELECT CONCAT(N'readpast.dedup:', d.dedup_key) FROM @dedup AS d WHERE d.n = @dedup_n);
  EXEC sys.sp_getapplock @dedup_resource, 'Exclusive', 'Transaction'; -- @Resource, @LockMode, @LockOwner
  -- not granted (a LOCK_TIMEOUT of the session ran out, a deadlock): the lock is not held
  IF COALESCE(APPLOCK_MODE(N'public', @dedup_resource, N'Transaction'), N'NoLock') <> N'Exclusive'
  BEGIN
    SET @msg = CONCAT(N'could not lock the dedup key for enqueue (', @dedup_resource, N'): lock timeout or deadlock');
    THROW 51004, @msg, 1;
  END;
  SET @dedup_n = @dedup_n + 1;
END;
UPDATE i SET token = t.token, existing = 1
  FROM @in AS i JOIN readpast.Tasks AS t ON t.dedup_key = i.dedup_key
  WHERE i.dedup_key IS NOT NULL AND t.dedup_key IS NOT NULL AND t.status IN ('waiting', 'pending', 'running');
UPDATE i SET token = f.token, existing = 1
  FROM @in AS i
  CROSS APPLY (SELECT TOP (1) g.token FROM @in AS g WHERE g.dedup_key = i.dedup_key AND g.ord < i.ord ORDER BY g.ord) AS f
  WHERE i.dedup_key IS NOT NULL AND i.existing = 0;
-- the tasks' keys: one ConcurrencyKeys row per key with unfinished tasks (a new key has served_at 0: it is
-- served first), at most ESCALATION_CHUNK tasks' keys per statement
WHILE @from <= @last
BEGIN
  INSERT INTO readpast.ConcurrencyKeys (queue, concurrency_key, served_at)
    SELECT DISTINCT i.queue, i.concurrency_key, 0 FROM @in AS i
    WHERE i.existing = 0 AND i.concurrency_key IS NOT NULL AND i.ord >= @from AND i.ord < @from + ${ESCALATION_CHUNK}
      AND NOT EXISTS (SELECT 1 FROM readpast.ConcurrencyKeys AS c WITH (UPDLOCK, HOLDLOCK)
        WHERE c.queue = i.queue AND c.concurrency_key = i.concurrency_key);
  SET @from = @from + ${ESCALATION_CHUNK};
END;
SET @from = 0;
${LINK_PARENTS}
-- the tasks, at most ESCALATION_CHUNK per statement
WHILE @from <= @last
BEGIN
  INSERT INTO readpast.Tasks (token, queue, kind, command, payload, status, priority, run_after, max_attempts, timeout_ms,
      dedup_key, caller, batch_id, stage, concurrency_key, created_at, flow_id, flow_node, parent_count, parents_left,
      blocked_by, error_message, finished_at, trace_parent, trace_state)
    OUTPUT inserted.id, inserted.queue, inserted.batch_id, inserted.stage, NULL, inserted.status, NULL, NULL, NULL INTO @moves
    SELECT i.token, i.queue, i.kind, i.command, i.payload,
      CASE WHEN i.blocked_by IS NOT NULL THEN 'cancelled' WHEN i.parents_left > 0 THEN 'waiting' ELSE 'pending' END,
      i.priority, COALESCE(i.run_after, @now),
      i.max_attempts, i.timeout_ms, i.dedup_key, i.caller, i.batch_id, i.stage, i.concurrency_key, @now, i.flow_id, i.flow_node,
      i.parent_count, i.parents_left, i.blocked_by, i.error_message, CASE WHEN i.blocked_by IS NULL THEN NULL ELSE @now END,
      i.trace_parent, i.trace_state
    FROM @in AS i
    WHERE i.existing = 0 AND i.ord >= @from AND i.ord < @from + ${ESCALATION_CHUNK}
    ORDER BY i.ord;
  SET @from = @from + ${ESCALATION_CHUNK};
END;
${INSERT_EDGES}
INSERT INTO @hist (queue, command, kind, ms)
  SELECT i.queue, ${historyCommandOf('i.kind', 'i.command')}, 'enqueued', NULL FROM @in AS i WHERE i.existing = 0;
${MOVES_TO_DELTAS}
SET @m_enqueued = (SELECT COUNT(*) FROM @moves);
${TALLY}
COMMIT TRANSACTION;`;
