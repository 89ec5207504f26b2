// T-SQL of events (lib/engine/types/durable.ts): readpast.SendEvent (installed by content, sql/callers.ts: the one
// definition of sending, which the Node store calls too), the match of a payload, a suspending task looking for an
// event sent since its attempt began (inside readpast.Finish_<hash>, sql/settle.ts), the Events page, and pruning.
//
// LOCK ORDER (sql/claim.ts): … Tasks → … → ExecutionLog → TaskSteps → Events → BatchStages → QueueCounts → …
// SendEvent's one exception: it inserts its event first (a new row, X-locked until the caller's transaction ends),
// then reads the waiting steps with a locking read and locks their tasks. No writer ever waits for that new row:
// a suspending finish reads Events past uncommitted rows (READPAST), pruning deletes only rows older than the
// retention, and the resumed count of an event is written only by the transaction that sent it or by a finish
// that found it committed. Inserting first is what makes a wait and an event that cross never miss each other:
// a finish that suspends a task either sees the event committed, or its step is read by SendEvent (the locking
// read waits for the finish's uncommitted step row) after the event's row exists.
import { EVENT_NAME_RULE, MAX_EVENT_PAYLOAD_BYTES } from '../../../lib/engine/limits';
import { fail } from './caller-checks';
import { DECLARE_CHUNKS, IN_CHUNK, inChunks } from './chunks';
import { BEGIN, DECLARE_MOVES, MOVES_TO_DELTAS, TALLY } from './tally';

/**
 * Whether the JSON object `payload` (NULL where the payload is not an object) contains `match` (a flat JSON object of
 * scalars), as lib/engine/steps.ts `matches` decides: each field of the match present at the payload's top level
 * with the same JSON type and an equal value — a field name and a string compared code unit by code unit (binary,
 * trailing spaces counted), a number as a number (42 = 42.0), true/false/null as themselves. An empty match: any
 * payload. (A payload with a field twice — only T-SQL can send one — matches if either occurrence does.)
 */
export const matchesSql = (payload: string, match: string) => `NOT EXISTS (SELECT 1 FROM OPENJSON(${match}) AS mf
      WHERE NOT EXISTS (SELECT 1 FROM OPENJSON(${payload}) AS pf
        WHERE pf.[key] = mf.[key] AND DATALENGTH(pf.[key]) = DATALENGTH(mf.[key]) AND pf.[type] = mf.[type]
          AND (mf.[type] = 0
            OR (mf.[type] = 2 AND TRY_CAST(pf.[value] AS float) = TRY_CAST(mf.[value] AS float))
            OR (mf.[type] IN (1, 3) AND pf.[value] COLLATE Latin1_General_100_BIN2 = mf.[value] COLLATE Latin1_General_100_BIN2
              AND DATALENGTH(pf.[value]) = DATALENGTH(mf.[value])))))`;

/** The JSON type of a JSON text's value (5: an object), read as the one element of an array around it; NULL: none. */
export const jsonTypeOf = (text: string) => `(SELECT TOP (1) w.[type] FROM OPENJSON(CONCAT(N'[', ${text}, N']')) AS w)`;

/**
 * Resume the tasks in @go (id) with @result (JSON text or NULL) from event @event_id (or NULL): each task pending,
 * due now, no longer suspended; the step it is suspended on succeeded with the result; counted (@moves). Inside a
 * transaction; @now set. Tasks → TaskSteps, as sql/claim.ts orders them. Adds to @resumed. @go holds at most
 * ESCALATION_CHUNK tasks (a chunk of the waits, a TOP of the due, one token).
 */
export const RESUME = `UPDATE t SET status = 'pending', run_after = @now, suspended = NULL
    OUTPUT inserted.id, inserted.queue, inserted.batch_id, inserted.stage, deleted.status, inserted.status, NULL, NULL, NULL
    INTO @moves
    FROM readpast.Tasks AS t JOIN @go AS g ON g.id = t.id
    WHERE t.status = 'waiting' AND t.suspended IS NOT NULL;
  SET @resumed = @resumed + @@ROWCOUNT;
  UPDATE s SET status = 'succeeded', ended_at = @now, result = g.result, event_id = g.event_id
    FROM readpast.TaskSteps AS s JOIN @go AS g ON g.id = s.task_id JOIN @moves AS m ON m.id = g.id
    WHERE s.status IN ('sleeping', 'waiting');`;

/**
 * The steps suspended on @Event, numbered (a locking read: it waits for a suspending finish's uncommitted step; see the
 * header) — each task's last waiting step only (one left `waiting` by a wait that was cancelled and retried is not
 * what the task waits on now); then, ESCALATION_CHUNK at a time, those whose match @Payload contains and whose task is still suspended
 * on an event (its row locked: UPDLOCK) are resumed (RESUME).
 */
const RESUME_WAITS = `INSERT INTO @waits (rn, task_id, event_match)
    SELECT ROW_NUMBER() OVER (ORDER BY s.task_id), s.task_id, s.event_match FROM readpast.TaskSteps AS s WITH (READCOMMITTEDLOCK)
    WHERE s.event = @Event AND s.status = 'waiting'
      AND NOT EXISTS (SELECT 1 FROM readpast.TaskSteps AS n WHERE n.task_id = s.task_id AND n.seq > s.seq AND n.status = 'waiting');
  ${inChunks(
    '@waits',
    `DELETE FROM @go;
    INSERT INTO @go (id, result, event_id)
      SELECT x.task_id, @Payload, @EventId FROM @waits AS x
      WHERE ${IN_CHUNK} AND ${matchesSql('@obj', 'x.event_match')}
        AND EXISTS (SELECT 1 FROM readpast.Tasks AS t WITH (UPDLOCK, ROWLOCK, READCOMMITTEDLOCK)
          WHERE t.id = x.task_id AND t.status = 'waiting' AND t.suspended = 'event');
    ${RESUME}`,
  )}`;

/** The table variable RESUME reads: the tasks to resume, each with its step's result and event. */
export const DECLARE_GO =
  'DECLARE @go TABLE (id bigint NOT NULL PRIMARY KEY, result nvarchar(max) NULL, event_id bigint NULL);\nDECLARE @resumed int = 0;';

/**
 * readpast.SendEvent's body: checks (THROW 50060–50062, before anything is written, under the caller's XACT_ABORT),
 * then the event's row and every task waiting for @Event whose match @Payload contains resumed, in one transaction
 * that nests in the caller's (BEGIN/COMMIT TRANSACTION: the caller's COMMIT or ROLLBACK decides; a rolled-back
 * caller's transaction sent nothing and resumed nothing). Outputs @EventId, @Resumed and @Tokens (a JSON array of the
 * resumed tasks' tokens). Pending tasks' workers find them at their next poll (or at once: Node's sendEvent wakes
 * its own process's pool).
 */
export const SEND_EVENT_BODY = `SET NOCOUNT ON;
  IF @Event IS NULL OR LEN(@Event) = 0 OR LEN(@Event) > 200
      OR @Event COLLATE Latin1_General_100_BIN2 LIKE N'%[^A-Za-z0-9_.:/-]%'
      OR LEFT(@Event, 1) COLLATE Latin1_General_100_BIN2 LIKE N'[^A-Za-z0-9]'
    ${fail(60, `@Event: ${EVENT_NAME_RULE}`)}
  IF @Payload IS NOT NULL AND (ISJSON(CONCAT(N'[', @Payload, N']')) = 0
      OR (SELECT COUNT(*) FROM OPENJSON(CONCAT(N'[', @Payload, N']'))) <> 1)
    ${fail(61, '@Payload: one JSON value (an object, an array, a string, a number, true, false or null), or NULL')}
  IF DATALENGTH(@Payload) > ${MAX_EVENT_PAYLOAD_BYTES * 2}
    ${fail(62, `@Payload: at most ${MAX_EVENT_PAYLOAD_BYTES} characters`)}
  ${BEGIN}
  ${DECLARE_MOVES}
  ${DECLARE_GO}
  ${DECLARE_CHUNKS}
  DECLARE @waits TABLE (rn int NOT NULL PRIMARY KEY, task_id bigint NOT NULL, event_match nvarchar(max) NULL);
  DECLARE @ids TABLE (id bigint NOT NULL);
  DECLARE @obj nvarchar(max) = CASE WHEN ${jsonTypeOf('@Payload')} = 5 THEN @Payload END;
  BEGIN TRANSACTION;
  INSERT INTO readpast.Events (name, payload, sent_at, caller) OUTPUT inserted.id INTO @ids
    VALUES (@Event, @Payload, @now, COALESCE(@Caller, ORIGINAL_LOGIN()));
  SET @EventId = (SELECT TOP (1) i.id FROM @ids AS i);
  ${RESUME_WAITS}
  UPDATE readpast.Events SET resumed = @resumed WHERE id = @EventId AND @resumed > 0;
  ${MOVES_TO_DELTAS}
  ${TALLY}
  COMMIT TRANSACTION;
  SET @Resumed = @resumed;
  SET @Tokens = COALESCE((SELECT LOWER(CONVERT(nchar(36), t.token)) AS token FROM readpast.Tasks AS t
      JOIN @moves AS m ON m.id = t.id FOR JSON PATH), N'[]');
  RETURN 0;`;

/** @Event wider than the column: a longer name is refused (50060), not cut short by the parameter. */
export const SEND_EVENT_PARAMS = [
  '@Event nvarchar(4000)',
  '@Payload nvarchar(max) = NULL',
  '@Caller nvarchar(200) = NULL',
  '@EventId bigint = NULL OUTPUT',
  '@Resumed int = NULL OUTPUT',
  '@Tokens nvarchar(max) = NULL OUTPUT',
] as const;

/**
 * Inside readpast.Finish_<hash>, once its tasks are suspended (@moves to 'waiting' of @r kind 'suspended') and their
 * steps written: for an event wait, the oldest event of its name sent since its attempt began whose payload contains
 * its match resumes it at once — the task pending (its move in @moves becomes running → pending), its step succeeded
 * with the payload, the event's resumed count up. Tasks (held already) → TaskSteps → Events. Events are read past
 * uncommitted rows (the header: a SendEvent in flight resumes the task itself once this commits).
 */
export const SUSPEND_MATCH = `INSERT INTO @go (id, result, event_id)
  SELECT r.task_id, e.payload, e.id
  FROM @r AS r
  JOIN @moves AS m ON m.id = r.task_id AND m.worker_id = r.worker_id AND m.attempt = r.attempt AND m.to_status = 'waiting'
  JOIN readpast.ExecutionLog AS l ON l.task_id = r.task_id AND l.attempt = r.attempt
  CROSS APPLY (SELECT TOP (1) ev.id, ev.payload FROM readpast.Events AS ev WITH (READPAST, READCOMMITTEDLOCK)
      WHERE ev.name = r.step_event AND ev.sent_at >= l.started_at
        AND ${matchesSql(`CASE WHEN ${jsonTypeOf('ev.payload')} = 5 THEN ev.payload END`, 'r.step_match')}
      ORDER BY ev.sent_at, ev.id) AS e
  WHERE r.kind = 'suspended' AND r.step_kind = 'event' AND r.step_event IS NOT NULL;
IF EXISTS (SELECT 1 FROM @go)
BEGIN
  UPDATE t SET status = 'pending', run_after = @now, suspended = NULL
    FROM readpast.Tasks AS t JOIN @go AS g ON g.id = t.id
    WHERE t.status = 'waiting' AND t.suspended = 'event';
  UPDATE m SET to_status = 'pending' FROM @moves AS m JOIN @go AS g ON g.id = m.id;
  UPDATE s SET status = 'succeeded', ended_at = @now, result = g.result, event_id = g.event_id
    FROM readpast.TaskSteps AS s JOIN @go AS g ON g.id = s.task_id
    WHERE s.status = 'waiting';
  UPDATE ev SET resumed = ev.resumed + x.n
    FROM readpast.Events AS ev JOIN (SELECT g.event_id, COUNT(*) AS n FROM @go AS g GROUP BY g.event_id) AS x ON x.event_id = ev.id;
END;`;

/** An event (id). */
export const GET_EVENT = 'SELECT e.id, e.name, e.payload, e.sent_at, e.caller, e.resumed FROM readpast.Events AS e WHERE e.id = @id;';

/** A keyset page of events, newest first (@name or NULL, @before or NULL, @limit). */
export const LIST_EVENTS = `SELECT TOP (@limit) e.id, e.name, e.payload, e.sent_at, e.caller, e.resumed FROM readpast.Events AS e
  WHERE (@name IS NULL OR e.name = @name) AND (@before IS NULL OR e.id < @before) ORDER BY e.id DESC;`;

/** The kept tasks an event resumed (@id); over IX_TaskSteps_event. */
export const EVENT_TASKS = `SELECT TOP (1000) t.token, t.queue, t.command, t.status, s.name AS step
  FROM readpast.TaskSteps AS s JOIN readpast.Tasks AS t ON t.id = s.task_id
  WHERE s.event_id = @id ORDER BY t.id;`;

/**
 * Events sent before @cutoff that no unfinished task was resumed by, ESCALATION-sized chunks (each its own
 * statement); the reads of TaskSteps and Tasks keep no lock (Events' rows here are old: no writer holds them).
 */
export const PRUNE_EVENTS = (chunk: number) => `SET @n = ${chunk};
WHILE @n = ${chunk}
BEGIN
  SET @n = 0;
  WITH doomed AS (
    SELECT TOP (${chunk}) e.id FROM readpast.Events AS e
    WHERE e.sent_at < @cutoff AND NOT EXISTS (SELECT 1 FROM readpast.TaskSteps AS s JOIN readpast.Tasks AS t ON t.id = s.task_id
      WHERE s.event_id = e.id AND t.status IN ('waiting', 'pending', 'running'))
  )
  DELETE FROM doomed;
  SET @n = @@ROWCOUNT;
END;`;
