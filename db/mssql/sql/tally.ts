// The shared start and end of every writing batch: one server time (@now) for the whole batch,
// and the kept aggregates it changes, applied last and in key order (see enqueue.ts):
//   @delta  (queue, status, n)          → QueueCounts
//   @sdelta (batch_id, stage, status, n) → BatchStages (status may be 'total')
//   @m_*                                 → this second's Metrics row

/** Start of every writing batch. `@now` is the server's clock. */
export const BEGIN = `SET NOCOUNT ON;
SET XACT_ABORT ON;
DECLARE @now datetime2(3) = SYSUTCDATETIME();
DECLARE @delta TABLE (queue nvarchar(64) NOT NULL, status varchar(10) NOT NULL, n int NOT NULL, PRIMARY KEY (queue, status));
DECLARE @sdelta TABLE (batch_id bigint NOT NULL, stage int NOT NULL, status varchar(10) NOT NULL, n int NOT NULL,
  PRIMARY KEY (batch_id, stage, status));
DECLARE @m_enqueued int = 0, @m_started int = 0, @m_succeeded int = 0, @m_failed int = 0, @m_lsum bigint = 0, @m_lmax int = 0;`;

/** Apply @sdelta, @delta (creating a missing row first) and the metrics. Runs inside the transaction. */
export const TALLY = `INSERT INTO readpast.BatchStages (batch_id, stage, total, pending, running, succeeded, dead, cancelled)
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
INSERT INTO readpast.QueueCounts (queue, status, n)
  SELECT d.queue, d.status, 0 FROM @delta AS d
  WHERE d.n <> 0 AND NOT EXISTS (SELECT 1 FROM readpast.QueueCounts AS c WHERE c.queue = d.queue AND c.status = d.status);
UPDATE c SET n = c.n + d.n
  FROM readpast.QueueCounts AS c JOIN @delta AS d ON d.queue = c.queue AND d.status = c.status
  WHERE d.n <> 0;
IF @m_enqueued + @m_started + @m_succeeded + @m_failed > 0
BEGIN
  DECLARE @sec bigint = DATEDIFF_BIG(SECOND, '19700101', @now);
  IF NOT EXISTS (SELECT 1 FROM readpast.Metrics WITH (UPDLOCK, HOLDLOCK) WHERE sec = @sec)
    INSERT INTO readpast.Metrics (sec, enqueued, started, succeeded, failed, latency_sum, latency_max)
    VALUES (@sec, 0, 0, 0, 0, 0, 0);
  UPDATE readpast.Metrics
    SET enqueued = enqueued + @m_enqueued, started = started + @m_started, succeeded = succeeded + @m_succeeded,
        failed = failed + @m_failed, latency_sum = latency_sum + @m_lsum,
        latency_max = CASE WHEN latency_max > @m_lmax THEN latency_max ELSE @m_lmax END
    WHERE sec = @sec;
END;`;

/**
 * Record that tasks moved between statuses. Expects a table variable @moves (queue, batch_id, stage,
 * from_status, to_status) — from/to NULL for a created/deleted task — and fills @delta and @sdelta.
 */
export const MOVES_TO_DELTAS = `INSERT INTO @delta (queue, status, n)
  SELECT y.queue, y.status, SUM(y.n) FROM (
    SELECT m.queue, m.from_status AS status, -1 AS n FROM @moves AS m WHERE m.from_status IS NOT NULL
    UNION ALL SELECT m.queue, m.to_status, 1 FROM @moves AS m WHERE m.to_status IS NOT NULL) AS y
  GROUP BY y.queue, y.status;
INSERT INTO @sdelta (batch_id, stage, status, n)
  SELECT y.batch_id, y.stage, y.status, SUM(y.n) FROM (
    SELECT m.batch_id, m.stage, m.from_status AS status, -1 AS n FROM @moves AS m WHERE m.from_status IS NOT NULL AND m.batch_id IS NOT NULL
    UNION ALL SELECT m.batch_id, m.stage, m.to_status, 1 FROM @moves AS m WHERE m.to_status IS NOT NULL AND m.batch_id IS NOT NULL
    UNION ALL SELECT m.batch_id, m.stage, 'total', CASE WHEN m.from_status IS NULL THEN 1 ELSE -1 END FROM @moves AS m
      WHERE m.batch_id IS NOT NULL AND (m.from_status IS NULL OR m.to_status IS NULL)) AS y
  GROUP BY y.batch_id, y.stage, y.status;`;

/** The @moves table variable MOVES_TO_DELTAS reads. */
export const DECLARE_MOVES =
  'DECLARE @moves TABLE (id bigint NOT NULL PRIMARY KEY, queue nvarchar(64) NOT NULL, batch_id bigint NULL, stage int NULL,\n' +
  `  from_status varchar(10) NULL, to_status varchar(10) NULL, token_no int NULL, attempt int NULL, worker_id nvarchar(256) NULL);`;

/** The last result set of a writing batch: the batches whose tasks it moved (to settle them next). */
export const TOUCHED = 'SELECT DISTINCT d.batch_id FROM @sdelta AS d;';
