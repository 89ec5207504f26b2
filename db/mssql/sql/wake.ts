// T-SQL of the wake-up long poll (../wake.ts): one per process, on a connection of its own.
//
// Tasks enqueued by another process — readpast.ExecAsync from T-SQL, another machine's producer — do not
// reach this process's in-process wake-up. The poll waits on the server, up to @wait_ms, for the newest
// task id to pass @last, looking every WAKE_STEP (a backward seek of one row on PK_Tasks: MAX(id) of the
// clustered key, no scan), and returns at once when it has. One round trip a second while idle, about ten
// one-row seeks.
//
// Locks: none held. No transaction; each look is a plain read under the session's default isolation:
// under READ_COMMITTED_SNAPSHOT it reads the last committed row version and waits for nothing; under
// locking READ COMMITTED its S lock on the last key lasts only for the read — if that key is a task a
// caller has inserted but not committed yet, the read waits until the caller commits or rolls back (which is
// the moment to look: a task is claimable only once committed) while claims, which read past locked rows,
// and inserts, which take new keys, go on. NOLOCK would never wait, but would see a task that is then rolled
// back and advance @last past a row that may commit a moment later, missing its wake-up.
// New tasks only: a retried task or a delayed one coming due is found by the pool's own poll (pool.ts).
// And only a new task that is ready: new rows that are all waiting (a flow's nodes), delayed, or already taken by
// another process wake nobody — the poll moves @last past them and waits on, so an idle pool never claims for a
// task it could not take (one seek over the new ids, once per batch of new rows).

/** Between two looks inside one poll. */
const WAKE_STEP = '00:00:00.100';

/**
 * Returns (top_id, ready): the newest task id and whether a task newer than @last is ready (pending and due) — as soon
 * as one is (@last NULL: at once), or after @wait_ms.
 */
export const WAKE_POLL = `SET NOCOUNT ON;
DECLARE @until datetime2(3) = DATEADD(MILLISECOND, @wait_ms, SYSUTCDATETIME()), @top bigint, @waiting bit = 1, @ready bit = 0;
DECLARE @seen bigint = @last;
WHILE @waiting = 1
BEGIN
  SET @top = (SELECT MAX(t.id) FROM readpast.Tasks AS t);
  IF @seen IS NOT NULL AND @top > @seen
  BEGIN
    IF EXISTS (SELECT 1 FROM readpast.Tasks AS t
        WHERE t.id > @seen AND t.id <= @top AND t.status = 'pending' AND t.run_after <= SYSUTCDATETIME())
      SET @ready = 1;
    SET @seen = @top;
  END;
  IF @last IS NULL OR @ready = 1 OR SYSUTCDATETIME() >= @until
    SET @waiting = 0;
  ELSE
    WAITFOR DELAY '${WAKE_STEP}';
END;
SELECT COALESCE(@top, 0) AS top_id, @ready AS ready;`;
