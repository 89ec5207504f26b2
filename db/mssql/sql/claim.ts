// The claim: one due task for each idle slot of a process, in one round trip (the slots as a JSON list, each task
// recorded with its slot's worker and session: the session that will run it), in short transactions — one per task
// claimed, nothing held across them, nothing open while the tasks run.
//
// LOCK ORDER. Every writer of the store takes its locks in this one order of tables:
//
//   Schedules → Queues → Batches → ConcurrencyKeys → Tasks → TaskEdges → ConcurrencyTokens → RateSlots
//   → ExecutionLog → TaskSteps → Events → BatchStages → QueueCounts → Metrics → QueueChanges
//
// (Durable handlers' TaskSteps and Events: sql/steps.ts, sql/events.ts. readpast.SendEvent inserts its own new Events
// row before it locks Tasks — a row no writer ever waits for: a suspending finish reads Events with READPAST, pruning
// deletes only old rows; sql/events.ts says why inserting first is what keeps a wait and its event from crossing.)
//
// (Flows rows are only ever inserted new, in a transaction of their own before the enqueue of the flow's nodes, and
// deleted by pruning once the flow has no task left: no writer waits on one while holding another lock.)
//
// Within Tasks, workflows add one rule: a parent's row before its children's — rising id order, as a child is always
// newer than its parents. The enqueue of a child locks its parents in id order before it inserts the child and its
// edges; a settle walks down from the task it settled, level by level, then the edges. The reasoning, and the one
// exception (a retried task reads its parents' status to count its edges): sql/edges.ts.
//
// and never waits for a lock on a table while it holds a lock on a table later in the list. "Holds" means
// X and U locks, and S locks kept by HOLDLOCK. A plain read keeps no lock past its row, but under locking
// READ COMMITTED (not READ_COMMITTED_SNAPSHOT) it waits for a writer's lock, so it obeys the same rule: a
// writer reads a table earlier in the list only before it locks anything later (or rows it holds itself);
// a READPAST read never waits for a row lock. Transactions that take locks in one order cannot wait for
// each other in a cycle, so the writers cannot deadlock one another over rows of these tables. Workers and
// Handlers are written by statements that lock nothing else. Two things this order alone does not cover,
// and how the store keeps them away: a table lock from lock escalation (READPAST skips row locks, not table
// locks) — every multi-row write is cut into statements of at most 1,000 rows (sql/chunks.ts); and two
// statements reaching one row through different indexes — the hot paths never wait on rows of Tasks (the
// claim reads with READPAST; settlements and rescue seek rows by their key). A deadlock SQL Server still
// reports (error 1205) is run again (errors.ts, retrying). Each writer says how it keeps the order:
// enqueue.ts, settle.ts, operators.ts, batches.ts, queues.ts, maintenance.ts, schedules.ts.
//
// Lanes, as in the SQLite store: unbatched tasks with no concurrency key form one lane per queue, the
// unbatched tasks of each (queue, concurrency key) another, each live batch another (its active stage
// only, while under its maxParallel, never past a failed stage of a batch that aborts); the
// highest-priority head wins, ties going to the lane served least recently (a key's turn is
// ConcurrencyKeys.served_at), so one large batch or one busy key cannot starve another. Paused queues,
// limited queues with no room, queues whose rate window is full, keys at their per-key limit and keys whose
// window is full are skipped before any TOP, so they block nobody else.
// The rules are listed once, by name, in lib/engine/claim-rules.ts; CLAIM is composed of their T-SQL
// fragments (CLAIM_RULE_SQL below), each byte for byte as the installed claim runs it (it returns
// the claimed task's parent_count too: the claim reads its parents on the same session only when it has some).
//
// First, without holding anything: the candidate queues (not paused, wanted by this worker, with room by
// a first count, a queue-wide rate window not full), the lanes (batches with a due task of a candidate
// queue in their active stage — those waiting at their sync point, full or with nothing due are left out
// before the TOP, so 500 of them cannot crowd out one that can run) and the key lanes (keys of candidate
// queues with a due task, under their per-key limit and rate window by a first count, least recently served
// first; ConcurrencyKeys read past the keys other claims are serving right now). Then rounds; each round reads
// the best head (a seek per candidate queue on IX_Tasks_ready_unkeyed, per key lane on IX_Tasks_key_ready, per
// lane on IX_Tasks_batch_dequeue; READPAST, no lock kept) and tries it in a transaction of its own, in the
// lock order:
//  1. its queue: a limited queue's row is written (Taskling's lock column serialises the queue's grants
//     across every process), an unlimited one's read with HOLDLOCK (a concurrent pause or new limit waits
//     for this claim, or this claim for it); `paused` and the limit are read there, under that lock;
//  2. a batch: its row is written (served now; held until commit: one claim of this batch at a time) unless
//     another claim served it meanwhile — then choose again (that keeps lanes alternating); its active
//     stage and room are checked once more under that lock;
//  2b. a keyed task's key: its ConcurrencyKeys row written (served now; a key lane's only if no other claim
//     served it meanwhile — then choose again, as for batches; a missing row is inserted), which serialises the
//     key's grants across every process; under that lock, with a per-key limit, the key's running tasks with
//     a live lease (IX_Tasks_running_key): no grant until running < perKeyLimit;
//  3. a limited queue's room: its limit less its running tasks with a live lease, token or not (a task
//     claimed while the queue was unlimited holds none): no grant until running < limit;
//  4. the claim proper: a CTE picks the head the round read by its key (a seek: no other row is locked —
//     delayed tasks ahead of it in the index are read past, never locked), or, when another claim took it
//     meanwhile, the next row of the lane and queue in dequeue order from the filtered index (its
//     `status = 'pending'` and `batch_id IS [NOT] NULL` literals match the index filters); either skips
//     rows others hold (READPAST) and locks its row (UPDLOCK; ROWLOCK keeps it a row lock;
//     READCOMMITTEDLOCK keeps READPAST legal under READ_COMMITTED_SNAPSHOT); updated with OUTPUT INTO;
//  5. a limited queue's token: its tokens brought in line with the limit, the lowest free one granted;
//  5b. a rate-limited queue's slot (RateSlots, per (queue, rate_key): '' for a queue-wide rate or a task with
//     no key, else the key): one whose used_at is out of the window, the oldest, skipping slots other claims
//     are taking (UPDLOCK, READPAST, ROWLOCK), else a new one while fewer than the limit exist (created under
//     UPDLOCK, HOLDLOCK on the last slot: creators of one rate key take turns); stamped used_at = now. While a
//     lowered limit's slots are still in the window, the window is counted exactly (a locking read) first.
//     No slot: the start waits (no attempt spent), the lane or queue is set aside;
//  6. the attempt is logged; counts and metrics are kept; commit.
// A round that cannot take its head rolls back (releasing every lock before the next round takes its
// queue's: no lock is ever held across rounds) and sets that lane, key, queue or batch aside. (Inside a
// caller's transaction — readpast doctor's dry run, rolled back whole — the rounds open no transactions
// of their own: what a failed round wrote is undone with the rest.) Rounds go on until
// no candidate head is left: a claim returns nothing only when there is nothing it may take (CLAIM_ROUNDS is
// a guard against a livelock, far above what a claim needs).
//
// TIME. @now (tally.ts BEGIN) is read again at the start of each round, once the round holds its queue's
// and batch's locks, and right before the row is taken: the lease (lease_until), started_at and the due
// checks are measured from the moment the task is taken, not from the start of a batch that may have waited
// behind other writers' locks, gone many rounds or compiled slowly, so a worker never receives a lease
// already partly spent (issue 26). A wait inside step 3 only makes the room check stricter.
//
// SLOTS. The slots are filled in order, one after the other, as separate claims sent one by one would fill them: each
// slot's rounds start from what the slots before it took (the rows they took are running; the queue, batch, key and
// slot rules are counted again under their locks), and a lane served for one slot has its turn stamped before the
// next (@unbatched_served, @lanes, @keys). The first slot that finds nothing ends the claim: its rounds went on until
// no candidate head was left. Each task's attempt is logged with its slot's worker and session (ExecutionLog.session):
// the worker's own connection, which runs it (its SPID as the store last read it; run.ts moves an attempt whose
// worker's connection was replaced since), whichever connection sent the claim.
//
// Installed as a procedure (readpast.Claim_<hash>, sql/hot.ts): a claim is sent as its name and four
// parameters instead of this batch's ~60 KB, and its table variables are cached with the procedure. The
// name is a hash of its text, so during a rolling upgrade workers of two versions each call the claim they
// were built with; a change of the claim is a new name, installed by the next migrate (code-objects.ts).
import { LIVE_BATCH, type ClaimRuleName } from '../../../lib/engine/claim-rules';
import { BEGIN, TALLY } from './tally';
import { historyCommandOf } from './history';
import { KEY_STEP, keyRoom, RATE_STEP, rateKeyOf, rateRoom, SET_LANE_ASIDE, TOKEN_STEP } from './claim-steps';

/**
 * The claim rules (lib/engine/claim-rules.ts) in T-SQL: one fragment per rule, the exact text that implements
 * it in CLAIM below, which is composed of them (claim-rules.test.ts: every rule has one, CLAIM contains it).
 * CLAIM is installed as readpast.Claim_<hash> (sql/hot.ts): a changed fragment is a new name, nothing more.
 * Each round checks the queue rules again under the queue's lock (@paused, @held),
 * the batch rules under the batch's (the lane's re-check repeats the batch fragments) and the key rules under
 * the key's (the per-key count) and the slot's (the rate). The two key fragments are the key lanes' filter
 * (ConcurrencyKeys AS ck, the candidate queue's settings AS q); batched keyed tasks are filtered by the same
 * texts on the task's key.
 */
export const CLAIM_RULE_SQL = {
  pending: "t.status = 'pending'",
  due: 't.run_after <= @now',
  in_queue_filter: '(@all_queues = 1 OR q.name IN (SELECT w.queue FROM @wanted AS w))',
  queue_not_paused: 'q.paused = 0',
  under_queue_limit: `(q.concurrency_limit IS NULL OR q.concurrency_limit > (
      SELECT COUNT(*) FROM readpast.Tasks AS t WITH (READPAST, READCOMMITTEDLOCK)
      WHERE t.status = 'running' AND t.queue = q.name AND t.lease_until >= @now))`,
  // a lane's tasks are those of a row of Batches
  batch_exists: 't.batch_id = b.id',
  batch_live: `b.status IN (${LIVE_BATCH.map((s) => `'${s}'`).join(', ')})`,
  stage_active: 'MIN(CASE WHEN s.pending + s.running > 0 THEN s.stage END)',
  not_after_failed_stage: "NOT (b.on_failure = 'abort' AND st.failed_stage IS NOT NULL AND st.stage > st.failed_stage)",
  under_batch_max_parallel: '(b.max_parallel IS NULL OR st.running < b.max_parallel)',
  under_key_limit: keyRoom('q.name', 'ck.concurrency_key', 'q.per_key_limit'),
  under_rate_limit: rateRoom('q.name', rateKeyOf('q.rate_per_key', 'ck.concurrency_key'), 'q.rate_limit', 'q.rate_period_s'),
} as const satisfies Record<ClaimRuleName, string>;
const R = CLAIM_RULE_SQL;

export const CLAIM_ROUNDS = 1000;

/** At most this many batch lanes per claim, and as many key lanes. */
export const CLAIM_LANES = 500;

/** Candidate queues: names a task's queue may take (no lock kept: each round checks under the queue's lock). */
const CANDIDATE = 'EXISTS (SELECT 1 FROM @cand AS k WHERE k.queue = t.queue)';

/**
 * A batched task of a candidate queue whose key has room and whose rate window (under a per-key rate) is not
 * full, by a first count: a full key must not hide the rest of its batch's stage.
 */
const TASK_RATE_KEY = "COALESCE(t.concurrency_key, N'')";
const CANDIDATE_WITH_ROOM = `EXISTS (SELECT 1 FROM @cand AS kq WHERE kq.queue = t.queue
              AND (t.concurrency_key IS NULL OR ${keyRoom('kq.queue', 't.concurrency_key', 'kq.per_key_limit')})
              AND (kq.rate_per_key = 0 OR ${rateRoom('kq.queue', TASK_RATE_KEY, 'kq.rate_limit', 'kq.rate_period_s')}))`;

const CLAIM_COLUMNS = `t.id, t.token, t.queue, t.kind, t.command, t.payload, t.priority, t.status, t.attempts, t.max_attempts,
        t.timeout_ms, t.created_at, t.run_after, t.started_at, t.worker_id, t.token_no, t.lease_until, t.cancel_requested,
        t.batch_id, t.stage, t.concurrency_key`;

const CLAIM_SET = `SET status = 'running', attempts = attempts + 1, worker_id = @worker_id, token_no = NULL,
          lease_until = DATEADD(MILLISECOND, @lease_ms, @now), started_at = @now, cancel_requested = 0
        OUTPUT inserted.id, inserted.token, inserted.queue, inserted.kind, inserted.command, inserted.payload,
          inserted.priority, inserted.attempts, inserted.max_attempts, inserted.timeout_ms, inserted.created_at,
          inserted.run_after, inserted.started_at, inserted.token_no, inserted.batch_id, inserted.stage, inserted.concurrency_key
        INTO @claimed`;

/**
 * The round's lane and queue: due pending rows (the literals match the filters of IX_Tasks_ready_unkeyed /
 * IX_Tasks_key_ready / IX_Tasks_batch_dequeue).
 */
const UNBATCHED = `${R.pending} AND t.batch_id IS NULL AND t.concurrency_key IS NULL AND t.queue = @queue AND ${R.due}`;
/** A batch lane's fallback row has the head's key (or none, as the head): the key locked and counted in step 2b. */
const SAME_KEY = '(t.concurrency_key = @key OR (@key IS NULL AND t.concurrency_key IS NULL))';
const KEYED = `${R.pending} AND t.batch_id IS NULL AND t.concurrency_key IS NOT NULL AND t.queue = @queue
            AND t.concurrency_key = @key AND ${R.due}`;
const BATCHED = `${R.pending} AND t.batch_id IS NOT NULL AND t.batch_id = @lane AND t.stage = @lane_stage
            AND t.queue = @queue AND ${R.due} AND ${SAME_KEY}`;
const ORDERED = '\n          ORDER BY t.priority DESC, t.id';

/** The claim of one row: skips rows others hold, locks the one it takes, starts its attempt (into @claimed). */
const pick = (where: string, order: string) => `WITH pick AS (
          SELECT TOP (1) ${CLAIM_COLUMNS}
          FROM readpast.Tasks AS t WITH (ROWLOCK, READPAST, UPDLOCK, READCOMMITTEDLOCK)
          WHERE ${where}${order}
        )
        UPDATE pick
          ${CLAIM_SET};`;

/** A lane's claim: its head by its key, else (taken meanwhile) the lane's next row in dequeue order. */
const pickInLane = (lane: string, rows: string) => `IF @ok = 1 AND ${lane}
    BEGIN
      DELETE FROM @claimed;
      ${pick(`t.id = @head_id AND ${rows}`, '')}
      IF NOT EXISTS (SELECT 1 FROM @claimed)
      BEGIN
        DELETE FROM @claimed;
        ${pick(rows, ORDERED)}
      END;
    END;`;

/**
 * Parameters: @slots (JSON array of {workerId, session}: the idle slots to fill, in order; a slot whose session is
 * null runs on this session: @@SPID), @lease_ms, @queues (JSON array or NULL = every queue), @unbatched_served (when
 * this process last served the unbatched lane, µs since 1970). Returns a result set per slot filled (its task, with
 * its slot's worker and session and its lane's served stamp; none when nothing was claimed), then the touched batches.
 */
export const CLAIM = `${BEGIN}
DECLARE @claimed TABLE (
  id bigint NOT NULL PRIMARY KEY, token uniqueidentifier NOT NULL, queue nvarchar(64) COLLATE Latin1_General_100_BIN2 NOT NULL,
  kind varchar(10) NOT NULL, command nvarchar(max) NOT NULL, payload nvarchar(max) NULL, priority int NOT NULL,
  attempts int NOT NULL, max_attempts int NOT NULL, timeout_ms int NULL, created_at datetime2(3) NOT NULL, run_after datetime2(3) NOT NULL,
  started_at datetime2(3) NOT NULL, token_no int NULL, batch_id bigint NULL, stage int NULL,
  concurrency_key nvarchar(200) COLLATE Latin1_General_100_BIN2 NULL);
DECLARE @cand TABLE (queue nvarchar(64) COLLATE Latin1_General_100_BIN2 NOT NULL PRIMARY KEY, limited bit NOT NULL,
  per_key_limit int NULL, rate_limit int NULL, rate_period_s int NULL, rate_per_key bit NOT NULL);
DECLARE @keys TABLE (queue nvarchar(64) COLLATE Latin1_General_100_BIN2 NOT NULL,
  concurrency_key nvarchar(200) COLLATE Latin1_General_100_BIN2 NOT NULL, served_at bigint NOT NULL,
  PRIMARY KEY (queue, concurrency_key));
DECLARE @skipped TABLE (lane bigint NOT NULL, queue nvarchar(64) COLLATE Latin1_General_100_BIN2 NOT NULL, PRIMARY KEY (lane, queue));
DECLARE @wanted TABLE (queue nvarchar(64) COLLATE Latin1_General_100_BIN2 NOT NULL PRIMARY KEY);
DECLARE @lanes TABLE (batch_id bigint NOT NULL PRIMARY KEY, stage int NOT NULL, served_at bigint NOT NULL);
DECLARE @held TABLE (id bigint NOT NULL PRIMARY KEY, attempts int NOT NULL);
-- the slots to fill, in order
DECLARE @slot_list TABLE (n int NOT NULL PRIMARY KEY, worker_id nvarchar(256) NOT NULL, session int NOT NULL);
DECLARE @touched TABLE (batch_id bigint NOT NULL PRIMARY KEY);
DECLARE @worker_id nvarchar(256), @session int, @slot_n int;
DECLARE @all_queues bit = CASE WHEN @queues IS NULL THEN 1 ELSE 0 END;
DECLARE @stamp bigint = NULL, @lane_served bigint, @served_now bigint;
DECLARE @done bit = 0, @won bit = 0, @rounds int = 0, @ok bit, @lane bigint, @lane_stage int, @queue nvarchar(64);
DECLARE @limited bit, @limit int, @paused bit, @head_id bigint, @tok int, @chunk int, @made int;
DECLARE @key nvarchar(200) = NULL, @key_limit int, @key_stamp bigint, @key_served bigint;
DECLARE @rate_limit int, @rate_period int, @rate_per_key bit, @rate_key nvarchar(200), @rate_since datetime2(3), @rate_slot int;
-- inside a caller's transaction (readpast doctor's dry run, rolled back whole) the rounds open none of their own
DECLARE @outer int = @@TRANCOUNT;
INSERT INTO @slot_list (n, worker_id, session)
  SELECT CAST(j.[key] AS int), s.worker_id, COALESCE(s.session, @@SPID)
  FROM OPENJSON(@slots) AS j
  CROSS APPLY OPENJSON(j.value) WITH (worker_id nvarchar(256) '$.workerId', session int '$.session') AS s
  WHERE s.worker_id IS NOT NULL;
SET @slot_n = (SELECT MIN(s.n) FROM @slot_list AS s);
IF @all_queues = 0
  INSERT INTO @wanted (queue) SELECT DISTINCT CAST(j.value AS nvarchar(64)) COLLATE Latin1_General_100_BIN2
  FROM OPENJSON(@queues) AS j
  WHERE j.value IS NOT NULL;
-- the candidate queues: not paused, wanted, and (a first count, skipping rows others hold) with room and,
-- under a queue-wide rate, a window not full
INSERT INTO @cand (queue, limited, per_key_limit, rate_limit, rate_period_s, rate_per_key)
  SELECT q.name, CASE WHEN q.concurrency_limit IS NULL THEN 0 ELSE 1 END, q.per_key_limit, q.rate_limit, q.rate_period_s,
    q.rate_per_key
  FROM readpast.Queues AS q
  WHERE ${R.queue_not_paused} AND ${R.in_queue_filter}
    AND ${R.under_queue_limit}
    AND (q.rate_per_key = 1 OR ${rateRoom('q.name', "N''", 'q.rate_limit', 'q.rate_period_s')});
-- the key lanes: keys of candidate queues (their settings as read above) with a due unbatched task, under their
-- per-key limit and rate window (first counts), least recently served first; keys other claims are serving right
-- now are read past
INSERT INTO @keys (queue, concurrency_key, served_at)
  SELECT TOP (${CLAIM_LANES}) ck.queue, ck.concurrency_key, ck.served_at
  FROM (SELECT k.queue AS name, k.per_key_limit, k.rate_limit, k.rate_period_s, k.rate_per_key FROM @cand AS k) AS q
  JOIN readpast.ConcurrencyKeys AS ck WITH (READPAST, READCOMMITTEDLOCK) ON ck.queue = q.name
  WHERE EXISTS (SELECT 1 FROM readpast.Tasks AS t WITH (READPAST, READCOMMITTEDLOCK)
      WHERE ${R.pending} AND t.batch_id IS NULL AND t.concurrency_key IS NOT NULL AND t.queue = ck.queue
        AND t.concurrency_key = ck.concurrency_key AND ${R.due})
    AND ${R.under_key_limit}
    AND ${R.under_rate_limit}
  ORDER BY ck.served_at, ck.queue, ck.concurrency_key;
-- the lanes: batches with a due task of a candidate queue in their active stage, least recently served first
INSERT INTO @lanes (batch_id, stage, served_at)
  SELECT TOP (${CLAIM_LANES}) b.id, st.stage, b.served_at
  FROM readpast.Batches AS b
  CROSS APPLY (SELECT ${R.stage_active} AS stage,
                      COALESCE(SUM(s.running), 0) AS running,
                      MIN(CASE WHEN s.dead > 0 THEN s.stage END) AS failed_stage
               FROM readpast.BatchStages AS s WHERE s.batch_id = b.id) AS st
  WHERE ${R.batch_live} AND st.stage IS NOT NULL
    AND ${R.under_batch_max_parallel}
    AND ${R.not_after_failed_stage}
    AND EXISTS (SELECT 1 FROM readpast.Tasks AS t WITH (READPAST, READCOMMITTEDLOCK)
      WHERE ${R.pending} AND t.batch_id IS NOT NULL AND ${R.batch_exists} AND t.stage = st.stage
        AND ${R.due} AND ${CANDIDATE})
  ORDER BY b.served_at, b.id;
-- the slots, one after the other: each gets the best task left (its own rounds, its own transaction), until one finds
-- nothing; every rule is checked again under its locks in each round, so a slot sees what the slots before it took
WHILE @slot_n IS NOT NULL AND @done = 0
BEGIN
SELECT @worker_id = s.worker_id, @session = s.session FROM @slot_list AS s WHERE s.n = @slot_n;
SET @won = 0;
SET @rounds = 0;
WHILE @won = 0 AND @done = 0 AND @rounds < ${CLAIM_ROUNDS}
BEGIN
  SET @rounds = @rounds + 1;
  -- the time is read again each round (and again once its locks are held, below): a claim that waited
  -- behind locks or went many rounds hands out a whole lease, and checks due times against the time now
  SET @now = SYSUTCDATETIME();
  SET @lane = NULL;
  SET @lane_stage = NULL;
  SET @queue = NULL;
  SET @key = NULL;
  -- the best head: per candidate queue (unbatched, no key), per key lane and per lane, no lock kept; lane -1 is
  -- a queue's unkeyed tasks, -2 a key's
  SELECT TOP (1) @lane = h.lane, @lane_stage = h.stage, @queue = h.queue, @lane_served = h.served_at,
    @head_id = h.id, @limited = h.limited, @key = h.concurrency_key
  FROM (
    SELECT CAST(-1 AS bigint) AS lane, CAST(NULL AS int) AS stage, k.queue, k.limited, u.priority,
      @unbatched_served AS served_at, u.id, CAST(NULL AS nvarchar(200)) COLLATE Latin1_General_100_BIN2 AS concurrency_key
    FROM @cand AS k
    CROSS APPLY (SELECT TOP (1) t.priority, t.id FROM readpast.Tasks AS t WITH (READPAST, READCOMMITTEDLOCK)
          WHERE ${R.pending} AND t.batch_id IS NULL AND t.concurrency_key IS NULL AND t.queue = k.queue AND ${R.due}
          ORDER BY t.priority DESC, t.id) AS u
    WHERE NOT EXISTS (SELECT 1 FROM @skipped AS x WHERE x.lane = -1 AND x.queue = k.queue)
      AND (k.rate_per_key = 0 OR ${rateRoom('k.queue', "N''", 'k.rate_limit', 'k.rate_period_s')})
    UNION ALL
    SELECT CAST(-2 AS bigint), CAST(NULL AS int), y.queue, k.limited, kh.priority, y.served_at, kh.id, y.concurrency_key
    FROM @keys AS y
    JOIN @cand AS k ON k.queue = y.queue
    CROSS APPLY (SELECT TOP (1) t.priority, t.id FROM readpast.Tasks AS t WITH (READPAST, READCOMMITTEDLOCK)
          WHERE ${R.pending} AND t.batch_id IS NULL AND t.concurrency_key IS NOT NULL AND t.queue = y.queue
            AND t.concurrency_key = y.concurrency_key AND ${R.due}
          ORDER BY t.priority DESC, t.id) AS kh
    UNION ALL
    SELECT l.batch_id, l.stage, bh.queue, k.limited, bh.priority, l.served_at, bh.id, bh.concurrency_key
    FROM @lanes AS l
    CROSS APPLY (SELECT TOP (1) t.queue, t.priority, t.id, t.concurrency_key FROM readpast.Tasks AS t WITH (READPAST, READCOMMITTEDLOCK)
          WHERE ${R.pending} AND t.batch_id IS NOT NULL AND t.batch_id = l.batch_id AND t.stage = l.stage
            AND ${R.due} AND ${CANDIDATE_WITH_ROOM}
            AND NOT EXISTS (SELECT 1 FROM @skipped AS x WHERE x.lane = l.batch_id AND x.queue = t.queue)
          ORDER BY t.priority DESC, t.id) AS bh
    JOIN @cand AS k ON k.queue = bh.queue
  ) AS h
  ORDER BY h.priority DESC, h.served_at, h.id;
  IF @lane IS NULL
    SET @done = 1;
  ELSE
  BEGIN
    SET @ok = 1;
    SET @tok = NULL;
    SET @limit = NULL;
    SET @paused = NULL;
    SET @key_limit = NULL;
    SET @rate_limit = NULL;
    DELETE FROM @claimed;
    IF @outer = 0
    BEGIN
      BEGIN TRANSACTION;
    END;
    -- 1. the queue, under its lock: a limited one's row written, an unlimited one's read and held
    IF @limited = 1
      UPDATE readpast.Queues SET lock_version = lock_version + 1, @limit = concurrency_limit, @paused = paused,
          @key_limit = per_key_limit, @rate_limit = rate_limit, @rate_period = rate_period_s, @rate_per_key = rate_per_key
        WHERE name = @queue;
    ELSE
    BEGIN
      SELECT @limit = q.concurrency_limit, @paused = q.paused, @key_limit = q.per_key_limit, @rate_limit = q.rate_limit,
          @rate_period = q.rate_period_s, @rate_per_key = q.rate_per_key
        FROM readpast.Queues AS q WITH (HOLDLOCK) WHERE q.name = @queue;
      -- limited since the candidates were read: take the round again with the row's write lock
      IF @limit IS NOT NULL
      BEGIN
        SET @ok = 0;
        UPDATE @cand SET limited = 1 WHERE queue = @queue;
      END;
    END;
    IF @ok = 1 AND (@paused IS NULL OR @paused = 1)
    BEGIN
      SET @ok = 0;
      DELETE FROM @cand WHERE queue = @queue;
    END;
    -- 2. a batch: served now, unless another claim served it meanwhile (choose again: fairness); its row
    --    is held until commit (one claim of this batch at a time); then its active stage and room once more
    IF @ok = 1 AND @lane >= 0
    BEGIN
      -- strictly later than any earlier stamp
      SET @stamp = DATEDIFF_BIG(MICROSECOND, '19700101', SYSUTCDATETIME());
      UPDATE readpast.Batches SET served_at = CASE WHEN @stamp > served_at THEN @stamp ELSE served_at + 1 END
        WHERE id = @lane AND served_at = @lane_served;
      IF @@ROWCOUNT = 0
      BEGIN
        SET @ok = 0;
        SET @served_now = NULL;
        SELECT @served_now = b.served_at FROM readpast.Batches AS b WHERE b.id = @lane;
        UPDATE @lanes SET served_at = @served_now WHERE batch_id = @lane AND @served_now IS NOT NULL;
        DELETE FROM @lanes WHERE batch_id = @lane AND @served_now IS NULL;
      END
      ELSE IF NOT EXISTS (SELECT 1 FROM readpast.Batches AS b
          CROSS APPLY (SELECT ${R.stage_active} AS stage,
                              COALESCE(SUM(s.running), 0) AS running,
                              MIN(CASE WHEN s.dead > 0 THEN s.stage END) AS failed_stage
                       FROM readpast.BatchStages AS s WHERE s.batch_id = b.id) AS st
          WHERE b.id = @lane AND ${R.batch_live} AND st.stage = @lane_stage
            AND ${R.under_batch_max_parallel}
            AND ${R.not_after_failed_stage})
      BEGIN
        SET @ok = 0;
        DELETE FROM @lanes WHERE batch_id = @lane;
      END
      ELSE
        SELECT @stamp = b.served_at FROM readpast.Batches AS b WHERE b.id = @lane;
    END;
    ${KEY_STEP}
    -- 3. a limited queue's room: its running tasks with a live lease, token or not (IX_Tasks_running_queue);
    --    kept in @held, so that step 5 tells held tokens from free ones without reading Tasks again (it
    --    writes ConcurrencyTokens by then, which come after Tasks in the lock order)
    IF @ok = 1
      SET @now = SYSUTCDATETIME();
    IF @ok = 1 AND @limit IS NOT NULL
    BEGIN
      DELETE FROM @held;
      INSERT INTO @held (id, attempts)
        SELECT t.id, t.attempts FROM readpast.Tasks AS t
        WHERE t.status = 'running' AND t.queue = @queue AND t.lease_until >= @now;
      IF (SELECT COUNT(*) FROM @held) >= @limit
      BEGIN
        SET @ok = 0;
        DELETE FROM @cand WHERE queue = @queue;
      END;
    END;
    -- 4. the claim proper: the head by its key, else (taken meanwhile) the next in dequeue order; its lease and
    --    started_at from the time the row is taken (step 3 may have waited for running rows' locks)
    IF @ok = 1
      SET @now = SYSUTCDATETIME();
    ${pickInLane('@lane = -1', UNBATCHED)}
    ${pickInLane('@lane = -2', KEYED)}
    ${pickInLane('@lane >= 0', BATCHED)}
    IF @ok = 1 AND NOT EXISTS (SELECT 1 FROM @claimed)
    BEGIN
      -- every due row of this lane and queue is held by other claims
      SET @ok = 0;
      ${SET_LANE_ASIDE}
    END;
    ${TOKEN_STEP}
    ${RATE_STEP}
    IF @ok = 1
      SET @won = 1;
    ELSE
    BEGIN
      IF @outer = 0
        ROLLBACK TRANSACTION;
      DELETE FROM @claimed;
    END;
  END;
END;
IF @won = 0
  -- nothing this slot may take (or the rounds' guard ran out): the slots after it would find nothing either
  SET @done = 1;
ELSE
BEGIN
  -- 6. log the attempt, keep the counts (a batch's lane was stamped in step 2, a key's in 2b; the unbatched
  --    lane's stamp is now)
  IF @lane = -1
    SET @stamp = DATEDIFF_BIG(MICROSECOND, '19700101', SYSUTCDATETIME());
  INSERT INTO readpast.ExecutionLog (task_id, attempt, queue, kind, command, worker_id, session, token_no, batch_id, stage,
      started_at, outcome)
    SELECT c.id, c.attempts, c.queue, c.kind, c.command, @worker_id, @session, c.token_no, c.batch_id, c.stage, @now, 'running'
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
  INSERT INTO @hist (queue, command, kind, ms)
    SELECT c.queue, ${historyCommandOf('c.kind', 'c.command')}, 'started', DATEDIFF_BIG(MILLISECOND, c.run_after, @now) FROM @claimed AS c;
${TALLY}
  IF @outer = 0
    COMMIT TRANSACTION;
  -- this slot's task, sent at once (a result set per slot): committed, it is its worker's whatever happens to the
  -- slots after it (an error or a cancel ends the batch; the rows already sent still reach the caller: claim.ts)
  SELECT c.id, c.token, c.queue, c.kind, c.command, c.payload, c.priority, c.attempts, c.max_attempts, c.timeout_ms,
    c.created_at, c.run_after, c.started_at, c.token_no, c.batch_id, c.stage, c.concurrency_key,
    COALESCE(q.backoff_ms, 1000) AS backoff_ms, @worker_id AS worker_id, @session AS session, @stamp AS served_stamp,
    x.parent_count, x.trace_parent, x.trace_state, x.attempt_trace
  FROM @claimed AS c LEFT JOIN readpast.Queues AS q ON q.name = c.queue
  OUTER APPLY (SELECT t.parent_count, t.trace_parent, t.trace_state, t.attempt_trace FROM readpast.Tasks AS t WHERE t.id = c.id) AS x;
  INSERT INTO @touched (batch_id)
    SELECT DISTINCT d.batch_id FROM @sdelta AS d WHERE NOT EXISTS (SELECT 1 FROM @touched AS x WHERE x.batch_id = d.batch_id);
  -- the next slot's claim sees the turns this one took: the unbatched lane's stamp, the batch's and the key's
  IF @lane = -1
    SET @unbatched_served = @stamp;
  IF @lane >= 0
    UPDATE @lanes SET served_at = @stamp WHERE batch_id = @lane;
  IF @key IS NOT NULL
    UPDATE @keys SET served_at = @key_stamp WHERE queue = @queue AND concurrency_key = @key;
  -- and starts from nothing: the kept counts' deltas were applied with this slot's commit
  DELETE FROM @claimed;
  DELETE FROM @delta;
  DELETE FROM @sdelta;
  DELETE FROM @hist;
  SELECT @m_started = 0, @m_lsum = 0, @m_lmax = 0, @m_dead = 0;
  SET @slot_n = (SELECT MIN(s.n) FROM @slot_list AS s WHERE s.n > @slot_n);
END;
END;
SELECT x.batch_id FROM @touched AS x;`;
