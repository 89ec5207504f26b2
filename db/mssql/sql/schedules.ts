// T-SQL of schedules: the definitions, the due check, and the fires. A fire is a task carrying
// (schedule_name, schedule_fire_at); UX_Tasks_schedule_fire (migration 3) makes it unique per tick.
//
// A check reads the due schedules (DUE_SCHEDULES), plans each in the engine (lib/engine/schedules.ts)
// and sends FIRE per schedule: in one transaction it advances the schedule — compare-and-set on the
// version and next fire time it planned from, so a schedule changed or fired meanwhile is left alone —
// and inserts one task per planned tick. Processes racing for the same tick: the first commits, the
// others update no row (nothing inserted) or, at worst, hit the unique index (2601), which rolls their
// transaction back; either way one task per tick.
//
// Lock order: Schedules first, then as enqueue.ts: Queues → ConcurrencyKeys (the fired task's key, by its queue's
// keyFrom: SCHEDULE_WALK, SCHEDULE_KEY) → Tasks → QueueCounts → Metrics.
import { BEGIN, DECLARE_MOVES, MOVES_TO_DELTAS, TALLY } from './tally';
import { historyCommandOf } from './history';
import { keyRowsFor, SCHEDULE_KEY, SCHEDULE_WALK } from './keys';

const SCHEDULE_COLUMNS = `s.name, s.cron, s.timezone, s.kind, s.command, s.payload, s.queue, s.priority, s.max_attempts,
  s.timeout_ms, s.enabled, s.misfire, s.overlap, s.next_fire_at, s.last_fire_at, s.last_token, s.source, s.declared, s.version,
  s.created_by, s.created_at, s.updated_by, s.updated_at`;

/** The newest @limit fires of each schedule in `s`: index IX_Tasks_schedule. */
const RECENT = `CROSS APPLY (SELECT TOP (@limit) t.id, t.token, t.schedule_fire_at, t.created_at, t.status FROM readpast.Tasks AS t
  WHERE t.schedule_name = s.name AND t.schedule_name IS NOT NULL ORDER BY t.id DESC) AS f`;

/** Every schedule; then the newest @limit fires of each (name, token, schedule_fire_at, created_at, status). */
/** The server's clock: a schedule's next fire is computed from it, as every other time is (lib/api/schedules.ts). */
export const SERVER_CLOCK = 'SELECT CAST(SYSUTCDATETIME() AS datetime2(3)) AS now;';

export const LIST_SCHEDULES = `SELECT ${SCHEDULE_COLUMNS} FROM readpast.Schedules AS s ORDER BY s.name;
SELECT s.name, f.token, f.schedule_fire_at, f.created_at, f.status FROM readpast.Schedules AS s
${RECENT}
ORDER BY s.name, f.id DESC;`;

/** One schedule (@name), then its newest @limit fires. */
export const GET_SCHEDULE = `SELECT ${SCHEDULE_COLUMNS} FROM readpast.Schedules AS s WHERE s.name = @name;
SELECT s.name, f.token, f.schedule_fire_at, f.created_at, f.status FROM readpast.Schedules AS s
${RECENT}
WHERE s.name = @name
ORDER BY f.id DESC;`;

/**
 * Enabled schedules due at @at (NULL: the server's clock), with that time and whether the previous fire's
 * task is still pending or running (skip_if_running).
 */
export const DUE_SCHEDULES = `DECLARE @when datetime2(3) = COALESCE(@at, SYSUTCDATETIME());
SELECT ${SCHEDULE_COLUMNS}, @when AS now,
  CASE WHEN EXISTS (SELECT 1 FROM readpast.Tasks AS t WHERE t.token = s.last_token AND t.status IN ('waiting', 'pending', 'running'))
    THEN 1 ELSE 0 END AS previous_active
FROM readpast.Schedules AS s
WHERE s.enabled = 1 AND s.next_fire_at <= @when
ORDER BY s.next_fire_at, s.name;`;

/**
 * Apply one check's plan to schedule @name, if it still is at @version with next fire @expected: advance
 * it to @next and insert the task of each fire in @fires (JSON [{ord, token, fireAt}], fireAt
 * 'YYYY-MM-DDTHH:MM:SS.mmm' UTC, oldest first), made by @caller and carrying the trace context @trace_parent,
 * @trace_state (NULL: none), but for a tick that has its task already
 * (the schedule was set back to it). Returns `applied` (0: changed or fired meanwhile; nothing written), then
 * the tokens of the tasks inserted. Two processes inserting the same tick at once: the second raises 2601,
 * which rolls its transaction back.
 */
/** A fired task's key row (ConcurrencyKeys comes before Tasks in the lock order; sql/keys.ts). */
const SCHEDULE_KEY_ROW = keyRowsFor(`SELECT s.queue, ${SCHEDULE_KEY} AS concurrency_key FROM readpast.Schedules AS s
    JOIN readpast.Queues AS q ON q.name = s.queue WHERE s.name = @name`);

export const FIRE = `${BEGIN}
${DECLARE_MOVES}
DECLARE @plan TABLE (ord int NOT NULL PRIMARY KEY, token uniqueidentifier NOT NULL, fire_at datetime2(3) NOT NULL);
INSERT INTO @plan (ord, token, fire_at)
  SELECT j.ord, j.token, j.fire_at
  FROM OPENJSON(@fires) WITH (ord int '$.ord', token uniqueidentifier '$.token', fire_at datetime2(3) '$.fireAt') AS j;
DECLARE @last_token uniqueidentifier = NULL, @last_fire datetime2(3) = NULL;
SELECT TOP (1) @last_token = p.token, @last_fire = p.fire_at FROM @plan AS p ORDER BY p.ord DESC;
DECLARE @sched TABLE (queue nvarchar(64) COLLATE Latin1_General_100_BIN2 NOT NULL);
BEGIN TRANSACTION;
UPDATE s SET next_fire_at = @next, last_fire_at = COALESCE(@last_fire, s.last_fire_at),
    last_token = COALESCE(@last_token, s.last_token)
  OUTPUT inserted.queue INTO @sched
  FROM readpast.Schedules AS s
  WHERE s.name = @name AND s.enabled = 1 AND s.version = @version AND s.next_fire_at = @expected;
IF EXISTS (SELECT 1 FROM @sched) AND EXISTS (SELECT 1 FROM @plan)
BEGIN
  INSERT INTO readpast.Queues (name)
    SELECT x.queue FROM @sched AS x
    WHERE NOT EXISTS (SELECT 1 FROM readpast.Queues AS q WITH (UPDLOCK, HOLDLOCK) WHERE q.name = x.queue);
  ${SCHEDULE_WALK}
  ${SCHEDULE_KEY_ROW}
  INSERT INTO readpast.Tasks (token, queue, kind, command, payload, status, priority, run_after, max_attempts, timeout_ms,
      caller, schedule_name, schedule_fire_at, concurrency_key, created_at, trace_parent, trace_state)
    OUTPUT inserted.id, inserted.queue, inserted.batch_id, inserted.stage, NULL, 'pending', NULL, NULL, NULL INTO @moves
    SELECT p.token, s.queue, s.kind, s.command, s.payload, 'pending', s.priority, @now, COALESCE(s.max_attempts, q.max_attempts),
      COALESCE(s.timeout_ms, q.timeout_ms), @caller, s.name, p.fire_at, ${SCHEDULE_KEY}, @now, @trace_parent, @trace_state
    FROM @plan AS p
    CROSS JOIN readpast.Schedules AS s
    JOIN readpast.Queues AS q ON q.name = s.queue
    WHERE s.name = @name
      AND NOT EXISTS (SELECT 1 FROM readpast.Tasks AS d WHERE d.schedule_name = @name AND d.schedule_fire_at = p.fire_at)
    ORDER BY p.ord;
  INSERT INTO @hist (queue, command, kind, ms)
    SELECT t.queue, ${historyCommandOf('t.kind', 't.command')}, 'enqueued', NULL
    FROM readpast.Tasks AS t JOIN @moves AS m ON m.id = t.id;
  ${MOVES_TO_DELTAS}
  SET @m_enqueued = (SELECT COUNT(*) FROM @moves);
  ${TALLY}
END;
COMMIT TRANSACTION;
SELECT CASE WHEN EXISTS (SELECT 1 FROM @sched) THEN 1 ELSE 0 END AS applied;
SELECT p.token FROM @plan AS p WHERE EXISTS (SELECT 1 FROM readpast.Tasks AS t WHERE t.token = p.token) ORDER BY p.ord;`;

/** Run schedule @name now, outside its cron (a manual run: no tick), as task @token made by @caller. Returns `applied`. */
export const RUN_SCHEDULE = `${BEGIN}
${DECLARE_MOVES}
DECLARE @sched TABLE (queue nvarchar(64) COLLATE Latin1_General_100_BIN2 NOT NULL);
BEGIN TRANSACTION;
UPDATE s SET last_fire_at = @now, last_token = @token
  OUTPUT inserted.queue INTO @sched
  FROM readpast.Schedules AS s
  WHERE s.name = @name;
IF EXISTS (SELECT 1 FROM @sched)
BEGIN
  INSERT INTO readpast.Queues (name)
    SELECT x.queue FROM @sched AS x
    WHERE NOT EXISTS (SELECT 1 FROM readpast.Queues AS q WITH (UPDLOCK, HOLDLOCK) WHERE q.name = x.queue);
  ${SCHEDULE_WALK}
  ${SCHEDULE_KEY_ROW}
  INSERT INTO readpast.Tasks (token, queue, kind, command, payload, status, priority, run_after, max_attempts, timeout_ms,
      caller, schedule_name, schedule_fire_at, concurrency_key, created_at)
    OUTPUT inserted.id, inserted.queue, inserted.batch_id, inserted.stage, NULL, 'pending', NULL, NULL, NULL INTO @moves
    SELECT @token, s.queue, s.kind, s.command, s.payload, 'pending', s.priority, @now, COALESCE(s.max_attempts, q.max_attempts),
      COALESCE(s.timeout_ms, q.timeout_ms), @caller, s.name, NULL, ${SCHEDULE_KEY}, @now
    FROM readpast.Schedules AS s
    JOIN readpast.Queues AS q ON q.name = s.queue
    WHERE s.name = @name;
  INSERT INTO @hist (queue, command, kind, ms)
    SELECT t.queue, ${historyCommandOf('t.kind', 't.command')}, 'enqueued', NULL
    FROM readpast.Tasks AS t JOIN @moves AS m ON m.id = t.id;
  ${MOVES_TO_DELTAS}
  SET @m_enqueued = (SELECT COUNT(*) FROM @moves);
  ${TALLY}
END;
COMMIT TRANSACTION;
SELECT CASE WHEN EXISTS (SELECT 1 FROM @sched) THEN 1 ELSE 0 END AS applied;`;

/** A new schedule unless the name is taken; returns `created` (0 or 1). */
export const CREATE_SCHEDULE = `SET NOCOUNT ON;
INSERT INTO readpast.Schedules (name, cron, timezone, kind, command, payload, queue, priority, max_attempts, timeout_ms, enabled,
    misfire, overlap, next_fire_at, source, declared, version, created_by, created_at, updated_by, updated_at)
  SELECT @name, @cron, @timezone, @kind, @command, @payload, @queue, @priority, @max_attempts, @timeout_ms, @enabled,
    @misfire, @overlap, @next_fire_at, @source, @declared, 1, @by, SYSUTCDATETIME(), @by, SYSUTCDATETIME()
  WHERE NOT EXISTS (SELECT 1 FROM readpast.Schedules AS s WITH (UPDLOCK, HOLDLOCK) WHERE s.name = @name);
SELECT @@ROWCOUNT AS created;`;

/**
 * Replace a definition if it is still at @version; the next fire time is kept unless @set_next = 1.
 * Returns `updated` (0 or 1) and `present` (whether the schedule exists).
 */
export const UPDATE_SCHEDULE = `SET NOCOUNT ON;
UPDATE s SET cron = @cron, timezone = @timezone, kind = @kind, command = @command, payload = @payload, queue = @queue,
    priority = @priority, max_attempts = @max_attempts, timeout_ms = @timeout_ms, enabled = @enabled, misfire = @misfire,
    overlap = @overlap, source = @source, declared = @declared, updated_by = @by, updated_at = SYSUTCDATETIME(),
    version = s.version + 1, next_fire_at = CASE WHEN @set_next = 1 THEN @next_fire_at ELSE s.next_fire_at END
  FROM readpast.Schedules AS s
  WHERE s.name = @name AND s.version = @version;
DECLARE @updated int = @@ROWCOUNT;
SELECT @updated AS updated, CASE WHEN EXISTS (SELECT 1 FROM readpast.Schedules AS s WHERE s.name = @name) THEN 1 ELSE 0 END AS present;`;

/** Returns `deleted` (0 or 1). */
export const DELETE_SCHEDULE = `SET NOCOUNT ON;
DELETE FROM readpast.Schedules WHERE name = @name;
SELECT @@ROWCOUNT AS deleted;`;
