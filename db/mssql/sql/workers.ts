// T-SQL of workers: their rows and sessions, the handler names they run, heartbeats that renew
// their leases.

/**
 * Insert or refresh a worker row with the session (SPID + login time) of its own connection; @queues: JSON array or
 * NULL; @code: the hot procedures this worker calls (a JSON array of names in schema readpast, sql/hot.ts), which
 * must all be installed: else error 51901, its message the schema's version (errors.ts codeMissing), and nothing
 * is written. Its heartbeat_at is then when it last used them (code-objects.ts retires the rest).
 */
export const REGISTER_WORKER = `SET NOCOUNT ON;
SET XACT_ABORT ON;
DECLARE @now datetime2(3) = SYSUTCDATETIME();
IF EXISTS (SELECT 1 FROM OPENJSON(@code) AS c
    WHERE OBJECT_ID(N'readpast.' + QUOTENAME(CAST(c.value AS nvarchar(128))), N'P') IS NULL)
BEGIN
  DECLARE @code_missing nvarchar(200) = CONCAT(N'readpast schema version ',
    (SELECT COALESCE(MAX(v.version), 0) FROM readpast.SchemaVersion AS v));
  THROW 51901, @code_missing, 1;
END;
BEGIN TRANSACTION;
UPDATE readpast.Workers WITH (UPDLOCK, HOLDLOCK)
  SET host = @host, pid = @pid, role = @role, queues = @queues, code = @code, session = @session, login_time = @login_time,
      heartbeat_at = @now, state = 'running', stopped_at = NULL
  WHERE worker_id = @worker_id;
IF @@ROWCOUNT = 0
  INSERT INTO readpast.Workers (worker_id, host, pid, role, queues, code, session, login_time, started_at, heartbeat_at, state)
  VALUES (@worker_id, @host, @pid, @role, @queues, @code, @session, @login_time, @now, @now, 'running');
COMMIT TRANSACTION;`;

/** A worker's connection was replaced (dropped and reconnected): record its new session. */
export const UPDATE_WORKER_SESSION = `UPDATE readpast.Workers SET session = @session, login_time = @login_time
  WHERE worker_id = @worker_id;`;

export const DEREGISTER_WORKER = `UPDATE readpast.Workers
  SET state = 'stopped', stopped_at = SYSUTCDATETIME(), heartbeat_at = SYSUTCDATETIME()
  WHERE worker_id = @worker_id;`;

/** @names: JSON array of handler names */
export const REGISTER_HANDLERS = `SET NOCOUNT ON;
SET XACT_ABORT ON;
DECLARE @now datetime2(3) = SYSUTCDATETIME();
DECLARE @n TABLE (name nvarchar(128) COLLATE Latin1_General_100_BIN2 NOT NULL PRIMARY KEY);
INSERT INTO @n (name) SELECT DISTINCT CAST(j.value AS nvarchar(128)) COLLATE Latin1_General_100_BIN2 FROM OPENJSON(@names) AS j;
BEGIN TRANSACTION;
UPDATE h SET seen_at = @now FROM readpast.Handlers AS h JOIN @n AS n ON n.name = h.name;
INSERT INTO readpast.Handlers (name, seen_at)
  SELECT n.name, @now FROM @n AS n
  WHERE NOT EXISTS (SELECT 1 FROM readpast.Handlers AS h WITH (UPDLOCK, HOLDLOCK) WHERE h.name = n.name);
COMMIT TRANSACTION;`;

/**
 * Renew worker heartbeats and the leases of their running attempts (fenced on task, worker, attempt),
 * only leases that have not expired: a lapsed lease is lost for good (its token may already be granted
 * to another attempt, which a claim does once lease_until < @now), so its worker aborts the attempt.
 * The attempts' rows are locked first and the time read after: a renewal that waited behind another
 * writer's lock neither spends part of the lease it grants nor renews a lease that lapsed while it waited
 * (SYSUTCDATETIME() in a statement is read once, when that statement starts).
 * @workers: JSON array of worker ids; @running: JSON array of {taskId, workerId, attempt}. Returns the owned
 * attempts (id, cancel_requested), then how long the batch ran in the server (server_ms).
 */
export const HEARTBEAT = `SET NOCOUNT ON;
SET XACT_ABORT ON;
DECLARE @began datetime2(7) = SYSUTCDATETIME();
DECLARE @now datetime2(3) = @began;
DECLARE @owned TABLE (id bigint NOT NULL PRIMARY KEY, cancel_requested bit NOT NULL);
DECLARE @mine TABLE (id bigint NOT NULL PRIMARY KEY);
DECLARE @held int;
UPDATE w SET heartbeat_at = @now, state = CASE WHEN w.state = 'lost' THEN 'running' ELSE w.state END
  FROM readpast.Workers AS w JOIN OPENJSON(@workers) AS j ON j.value = w.worker_id;
INSERT INTO @mine (id)
  SELECT DISTINCT r.task_id FROM OPENJSON(@running) WITH (task_id bigint '$.taskId') AS r WHERE r.task_id IS NOT NULL;
IF EXISTS (SELECT 1 FROM @mine)
BEGIN
  BEGIN TRANSACTION;
  -- the rows first (a wait here is for another writer of them: a settlement, the rescue, a cancel)
  SELECT @held = COUNT(*) FROM readpast.Tasks AS t WITH (UPDLOCK, ROWLOCK, READCOMMITTEDLOCK)
    JOIN @mine AS m ON m.id = t.id;
  -- then the time: the renewed lease runs its whole length from now, and a lease that lapsed meanwhile stays lost
  SET @now = SYSUTCDATETIME();
  UPDATE t SET lease_until = DATEADD(MILLISECOND, @lease_ms, @now)
    OUTPUT inserted.id, inserted.cancel_requested INTO @owned
    FROM readpast.Tasks AS t
    JOIN OPENJSON(@running) WITH (task_id bigint '$.taskId', worker_id nvarchar(256) '$.workerId', attempt int '$.attempt') AS r
      ON r.task_id = t.id
    WHERE t.status = 'running' AND t.worker_id = r.worker_id AND t.attempts = r.attempt AND t.lease_until >= @now;
  COMMIT TRANSACTION;
END;
SELECT o.id, o.cancel_requested FROM @owned AS o ORDER BY o.id;
-- the time this batch took in the server (lock waits included): the pool tells it from the wait for a connection
SELECT DATEDIFF(MILLISECOND, @began, SYSUTCDATETIME()) AS server_ms;`;
