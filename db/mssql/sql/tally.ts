// The shared start and end of every writing batch: one server time (@now) for the whole batch,
// and the kept aggregates it changes, applied last and in key order (see enqueue.ts):
//   @delta  (queue, status, n)          → QueueCounts, this writer's slot
//   @sdelta (batch_id, stage, status, n) → BatchStages (status may be 'total')
//   @m_*                                 → this second's Metrics row, this writer's slot
//   @hist   (queue, command, kind, ms)   → this minute's HistoryMinutes rows, this writer's slot (sql/history.ts)
//
// Slots. Every enqueue, claim, settlement and rescue ends here, and the rows it bumps stay locked
// until it commits. Keyed on (queue, status) and on the second alone, those rows would be touched by
// every writer of a queue and of the database: one row lock serialising them all. So QueueCounts and
// Metrics carry a slot in their key (schema.ts: 'counts and metrics sharded by slot') and each writer
// bumps the rows of its own slot, @@SPID % 16: sessions alive at once have distinct ids (any 16
// consecutive ones fall in 16 different slots), so writers contend 16 ways less, and one session always
// lands in the same slot, so its rows stay few and hot in cache. A slot's count may go negative (a task
// enqueued in one slot is claimed from another); only the sum over the slots means anything, and every
// reader sums (reads.ts, queues.ts LIST_QUEUES, maintenance.ts SAMPLE_DEPTH; the depth gauge lives in
// slot 0 and is read with MAX). SQLite has one writer at a time and keeps one row per key; the read
// model is the same.
//
// Upserts. A missing row is inserted first (n = 0), its existence checked under UPDLOCK, HOLDLOCK, then
// the row is updated, all in the writer's transaction. The hints make that check a locking serializable
// read, also under READ_COMMITTED_SNAPSHOT: an existing row stays held (U, then X) and a missing key's
// range stays held (RangeS-U) until commit. So no other writer inserts the same key (no error 2627), and
// pruning (PRUNE_REST deletes rows at zero) cannot delete the row between the check and the update, which
// would lose the count. FORCESEEK keeps those locks on the keys this batch touches: QueueCounts is small,
// and a scan under HOLDLOCK would lock all of it until commit. MERGE … WITH (HOLDLOCK) would take the
// same locks in one statement; these two plain statements are the pattern the store already uses for
// Metrics and Handlers, without MERGE's history of product bugs (and the parse check reads them).
import { DECLARE_HIST, HISTORY_TALLY } from './history';

/** Start of every writing batch. `@now` is the server's clock. */
export const BEGIN = `SET NOCOUNT ON;
SET XACT_ABORT ON;
DECLARE @now datetime2(3) = SYSUTCDATETIME();
DECLARE @delta TABLE (queue nvarchar(64) COLLATE Latin1_General_100_BIN2 NOT NULL, status varchar(10) NOT NULL, n int NOT NULL,
  PRIMARY KEY (queue, status));
DECLARE @sdelta TABLE (batch_id bigint NOT NULL, stage int NOT NULL, status varchar(10) NOT NULL, n int NOT NULL,
  PRIMARY KEY (batch_id, stage, status));
DECLARE @m_enqueued int = 0, @m_started int = 0, @m_succeeded int = 0, @m_failed int = 0, @m_lsum bigint = 0, @m_lmax int = 0;
DECLARE @m_dead int = 0;
${DECLARE_HIST}`;

/** Apply @sdelta, @delta (creating a missing row first) and the metrics. Runs inside the transaction. */
export const TALLY = `DECLARE @slot tinyint = @@SPID % 16;
INSERT INTO readpast.BatchStages (batch_id, stage, total, pending, running, succeeded, dead, cancelled)
  SELECT DISTINCT d.batch_id, d.stage, 0, 0, 0, 0, 0, 0 FROM @sdelta AS d
  WHERE NOT EXISTS (SELECT 1 FROM readpast.BatchStages AS s WHERE s.batch_id = d.batch_id AND s.stage = d.stage);
UPDATE s
  SET total = s.total + x.total, pending = s.pending + x.pending, running = s.running + x.running,
      succeeded = s.succeeded + x.succeeded, dead = s.dead + x.dead, cancelled = s.cancelled + x.cancelled
  FROM readpast.BatchStages AS s
  JOIN (SELECT d.batch_id, d.stage,
          SUM(CASE WHEN d.status = 'total' THEN d.n ELSE 0 END) AS total,
          SUM(CASE WHEN d.status = 'pending' THEN d.n ELSE 0 END) AS pending,
          SUM(CASE WHEN d.status = 'running' THEN d.n ELSE 0 END) AS running,
          SUM(CASE WHEN d.status = 'succeeded' THEN d.n ELSE 0 END) AS succeeded,
          SUM(CASE WHEN d.status = 'dead' THEN d.n ELSE 0 END) AS dead,
          SUM(CASE WHEN d.status = 'cancelled' THEN d.n ELSE 0 END) AS cancelled
        FROM @sdelta AS d GROUP BY d.batch_id, d.stage) AS x
    ON x.batch_id = s.batch_id AND x.stage = s.stage;
INSERT INTO readpast.QueueCounts (queue, status, slot, n)
  SELECT d.queue, d.status, @slot, 0 FROM @delta AS d
  WHERE d.n <> 0 AND NOT EXISTS (SELECT 1 FROM readpast.QueueCounts AS c WITH (UPDLOCK, HOLDLOCK, FORCESEEK)
    WHERE c.queue = d.queue AND c.status = d.status AND c.slot = @slot);
UPDATE c SET n = c.n + d.n
  FROM readpast.QueueCounts AS c WITH (FORCESEEK) JOIN @delta AS d ON d.queue = c.queue AND d.status = c.status
  WHERE c.slot = @slot AND d.n <> 0;
SET @m_dead = (SELECT COUNT(*) FROM @hist AS h WHERE h.kind = 'dead');
${HISTORY_TALLY}
IF @m_enqueued + @m_started + @m_succeeded + @m_failed > 0
BEGIN
  DECLARE @sec bigint = DATEDIFF_BIG(SECOND, '19700101', @now);
  IF NOT EXISTS (SELECT 1 FROM readpast.Metrics WITH (UPDLOCK, HOLDLOCK) WHERE sec = @sec AND slot = @slot)
    INSERT INTO readpast.Metrics (sec, slot, enqueued, started, succeeded, failed, latency_sum, latency_max)
    VALUES (@sec, @slot, 0, 0, 0, 0, 0, 0);
  UPDATE readpast.Metrics
    SET enqueued = enqueued + @m_enqueued, started = started + @m_started, succeeded = succeeded + @m_succeeded,
        failed = failed + @m_failed, dead = dead + @m_dead, latency_sum = latency_sum + @m_lsum,
        latency_max = CASE WHEN latency_max > @m_lmax THEN latency_max ELSE @m_lmax END
    WHERE sec = @sec AND slot = @slot;
END;`;

/**
 * Record that tasks moved between statuses. Expects a table variable @moves (queue, batch_id, stage,
 * from_status, to_status) — from/to NULL for a created/deleted task — and fills @delta and @sdelta.
 */
/**
 * A status as a batch stage counts it: a batch's task is `waiting` only while its durable handler is suspended
 * (batches take no dependencies) — unfinished, not running: pending.
 */
const STAGE_STATUS = (col: string) => `CASE WHEN ${col} = 'waiting' THEN 'pending' ELSE ${col} END`;

export const MOVES_TO_DELTAS = `INSERT INTO @delta (queue, status, n)
  SELECT y.queue, y.status, SUM(y.n) FROM (
    SELECT m.queue, m.from_status AS status, -1 AS n FROM @moves AS m WHERE m.from_status IS NOT NULL
    UNION ALL SELECT m.queue, m.to_status, 1 FROM @moves AS m WHERE m.to_status IS NOT NULL) AS y
  GROUP BY y.queue, y.status;
INSERT INTO @sdelta (batch_id, stage, status, n)
  SELECT y.batch_id, y.stage, y.status, SUM(y.n) FROM (
    SELECT m.batch_id, m.stage, ${STAGE_STATUS('m.from_status')} AS status, -1 AS n FROM @moves AS m
      WHERE m.from_status IS NOT NULL AND m.batch_id IS NOT NULL
    UNION ALL SELECT m.batch_id, m.stage, ${STAGE_STATUS('m.to_status')}, 1 FROM @moves AS m
      WHERE m.to_status IS NOT NULL AND m.batch_id IS NOT NULL
    UNION ALL SELECT m.batch_id, m.stage, 'total', CASE WHEN m.from_status IS NULL THEN 1 ELSE -1 END FROM @moves AS m
      WHERE m.batch_id IS NOT NULL AND (m.from_status IS NULL OR m.to_status IS NULL)) AS y
  GROUP BY y.batch_id, y.stage, y.status;`;

/** The @moves table variable MOVES_TO_DELTAS reads. */
export const DECLARE_MOVES =
  'DECLARE @moves TABLE (id bigint NOT NULL PRIMARY KEY, queue nvarchar(64) COLLATE Latin1_General_100_BIN2 NOT NULL,\n' +
  '  batch_id bigint NULL, stage int NULL, from_status varchar(10) NULL, to_status varchar(10) NULL, token_no int NULL,\n' +
  '  attempt int NULL, worker_id nvarchar(256) NULL);';

/** The last result set of a writing batch: the batches whose tasks it moved (to settle them next). */
export const TOUCHED = 'SELECT DISTINCT d.batch_id FROM @sdelta AS d;';
