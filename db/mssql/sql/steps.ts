// T-SQL of durable handlers' steps (lib/engine/types/durable.ts): reading a task's recorded steps, recording one
// (fenced on its attempt), the step a settlement suspends its task on (inside readpast.Finish_<hash>), and resuming a
// suspended task — its step over, the task pending — when its time comes or an operator wakes it (an event:
// sql/events.ts).
//
// LOCK ORDER (sql/claim.ts): TaskSteps comes after ExecutionLog and before Events — every statement here locks the
// task's row first (UPDLOCK: the fence, or the resume), then its steps; none holds a TaskSteps lock while it waits
// for a Tasks lock.
import { DECLARE_GO, RESUME } from './events';
import { BEGIN, DECLARE_MOVES, MOVES_TO_DELTAS, TALLY } from './tally';

/** A task's recorded steps in order (@task). */
export const LOAD_STEPS = `SELECT s.seq, s.name, s.kind, s.status, s.attempt, s.tries, s.started_at, s.ended_at, s.result, s.error_number,
    s.error_message, s.error_detail, s.wake_at, s.event, s.event_match, s.event_id
  FROM readpast.TaskSteps AS s WHERE s.task_id = @task ORDER BY s.seq;
SELECT COALESCE(t.suspensions, 0) AS suspensions FROM readpast.Tasks AS t WHERE t.id = @task;`;

/**
 * The steps of a task's page (@token, @shown): a large result (over @shown characters) only previewed. First set:
 * whether the task exists.
 */
export const LIST_STEPS = `SELECT t.id FROM readpast.Tasks AS t WHERE t.token = @token;
SELECT s.seq, s.name, s.kind, s.status, s.attempt, s.tries, s.started_at, s.ended_at,
    CASE WHEN DATALENGTH(s.result) / 2 <= @shown THEN s.result END AS result,
    CASE WHEN DATALENGTH(s.result) / 2 > @shown THEN LEFT(s.result, 1024) END AS result_preview,
    COALESCE(DATALENGTH(s.result) / 2, 0) AS result_bytes,
    s.error_number, s.error_message, s.error_detail, s.wake_at, s.event, s.event_match, s.event_id
  FROM readpast.TaskSteps AS s JOIN readpast.Tasks AS t ON t.id = s.task_id
  WHERE t.token = @token ORDER BY s.seq;`;

/** The step columns a write sets, as @-parameters of RECORD_STEP (or columns of Finish's @r, prefixed `r.step_`). */
const STEP_SET = (v: (c: string) => string) => `name = ${v('name')}, kind = ${v('kind')}, status = ${v('status')},
      attempt = ${v('attempt')}, tries = s.tries + 1, started_at = ${v('started')}, ended_at = ${v('ended')}, result = ${v('result')},
      error_number = ${v('error_number')}, error_message = ${v('error_message')}, error_detail = ${v('error_detail')},
      wake_at = ${v('wake')}, event = ${v('event')}, event_match = ${v('match')}`;
const STEP_COLUMNS = `task_id, seq, name, kind, status, attempt, started_at, ended_at, result, error_number, error_message,
      error_detail, wake_at, event, event_match`;
const STEP_VALUES = (v: (c: string) => string) =>
  ['task', 'seq', 'name', 'kind', 'status', 'attempt', 'started', 'ended', 'result', 'error_number', 'error_message', 'error_detail']
    .concat(['wake', 'event', 'match'])
    .map(v)
    .join(', ');

/**
 * Record a step, fenced like a settlement: only while its attempt (@task, @worker, @attempt) owns its task with a
 * live lease — the task's row locked (UPDLOCK) until the commit, so no rescue takes it between the fence and the
 * write. A step recorded again replaces its failed record (a succeeded one is never replaced: it is replayed).
 * Its own BEGIN/COMMIT nest in a caller's transaction (a transactional step: its statements and this commit
 * together). Returns (ok): 0 when the attempt lost its task (nothing written).
 */
export const RECORD_STEP = `SET NOCOUNT ON;
SET XACT_ABORT ON;
DECLARE @ok int = 0;
BEGIN TRANSACTION;
IF EXISTS (SELECT 1 FROM readpast.Tasks AS t WITH (UPDLOCK, ROWLOCK, READCOMMITTEDLOCK)
    WHERE t.id = @task AND t.worker_id = @worker AND t.attempts = @attempt AND t.status = 'running'
      AND t.lease_until >= SYSUTCDATETIME())
BEGIN
  UPDATE s SET ${STEP_SET((c) => `@${c}`)}
    FROM readpast.TaskSteps AS s WHERE s.task_id = @task AND s.seq = @seq AND s.status <> 'succeeded';
  SET @ok = @@ROWCOUNT;
  IF @ok = 0 AND NOT EXISTS (SELECT 1 FROM readpast.TaskSteps AS s WHERE s.task_id = @task AND s.seq = @seq)
  BEGIN
    INSERT INTO readpast.TaskSteps (${STEP_COLUMNS}) VALUES (${STEP_VALUES((c) => `@${c}`)});
    SET @ok = 1;
  END;
END;
COMMIT TRANSACTION;
SELECT @ok AS ok;`;

/**
 * Inside readpast.Finish_<hash>: the step each attempt suspended on (@r kind 'suspended', its task moved to
 * 'waiting' by this batch), replacing a failed record or inserted. Tasks are held already; then TaskSteps.
 */
export const PUT_SUSPENDED_STEPS = `UPDATE s SET ${STEP_SET((c) => (c === 'attempt' ? 'r.attempt' : `r.step_${c}`))}
  FROM readpast.TaskSteps AS s
  JOIN @r AS r ON r.task_id = s.task_id AND r.step_seq = s.seq AND r.kind = 'suspended'
  JOIN @moves AS m ON m.id = r.task_id AND m.worker_id = r.worker_id AND m.attempt = r.attempt
  WHERE s.status <> 'succeeded';
INSERT INTO readpast.TaskSteps (${STEP_COLUMNS})
  SELECT ${STEP_VALUES((c) => (c === 'task' ? 'r.task_id' : c === 'attempt' ? 'r.attempt' : `r.step_${c}`))}
  FROM @r AS r JOIN @moves AS m ON m.id = r.task_id AND m.worker_id = r.worker_id AND m.attempt = r.attempt
  WHERE r.kind = 'suspended'
    AND NOT EXISTS (SELECT 1 FROM readpast.TaskSteps AS s WHERE s.task_id = r.task_id AND s.seq = r.step_seq);`;

/** The step of a suspending attempt, as columns of Finish's @r (declared, named with a prefix, read from $.step). */
const STEP_FIELDS: readonly [column: string, type: string, json: string][] = [
  ['seq', 'int', 'seq'],
  ['name', 'nvarchar(200)', 'name'],
  ['kind', 'varchar(12)', 'kind'],
  ['status', 'varchar(10)', 'status'],
  ['started', 'datetime2(3)', 'startedAt'],
  ['ended', 'datetime2(3)', 'endedAt'],
  ['result', 'nvarchar(max)', 'result'],
  ['error_number', 'int', 'errorNumber'],
  ['error_message', 'nvarchar(4000)', 'errorMessage'],
  ['error_detail', 'nvarchar(max)', 'errorDetail'],
  ['wake', 'datetime2(3)', 'wakeAt'],
  ['event', 'nvarchar(200)', 'event'],
  ['match', 'nvarchar(max)', 'match'],
];
/** (the event's name compared with Events.name: binary, as that column) */
export const STEP_COLUMNS_DECLARED = STEP_FIELDS.map(
  ([c, type]) => `step_${c} ${type}${c === 'event' ? ' COLLATE Latin1_General_100_BIN2' : ''} NULL`,
).join(', ');
export const STEP_COLUMN_NAMES = (prefix: string) => STEP_FIELDS.map(([c]) => `${prefix}step_${c}`).join(', ');
export const STEP_JSON_COLUMNS = STEP_FIELDS.map(([c, type, json]) => `step_${c} ${type} '$.step.${json}'`).join(', ');

/** Whether a suspended task's time has come (a read, no lock kept: an idle store writes nothing). */
export const WAKE_DUE_READ = `SELECT TOP (1) 1 AS due FROM readpast.Tasks AS t WITH (READPAST, READCOMMITTEDLOCK)
  WHERE t.status = 'waiting' AND t.suspended IS NOT NULL AND t.run_after <= SYSUTCDATETIME();`;

/** Suspended tasks resumed per transaction of the wake-up (below lock escalation: sql/chunks.ts). */
export const WAKE_CHUNK = 1000;

/**
 * Resume up to WAKE_CHUNK suspended tasks whose time has come (a sleep over, an event wait timed out): their
 * steps succeed with null, the tasks pending, due now. Rows other writers hold are read past (a task a
 * SendEvent is resuming right now). Returns (resumed).
 */
export const WAKE_DUE = `${BEGIN}
${DECLARE_MOVES}
${DECLARE_GO}
BEGIN TRANSACTION;
INSERT INTO @go (id)
  SELECT TOP (${WAKE_CHUNK}) t.id FROM readpast.Tasks AS t WITH (UPDLOCK, ROWLOCK, READPAST, READCOMMITTEDLOCK)
  WHERE t.status = 'waiting' AND t.suspended IS NOT NULL AND t.run_after <= @now
  ORDER BY t.run_after;
${RESUME}
${MOVES_TO_DELTAS}
${TALLY}
COMMIT TRANSACTION;
SELECT @resumed AS resumed;`;

/** An operator resumes a suspended task now (@token). Returns (resumed, found). */
export const WAKE_ONE = `${BEGIN}
${DECLARE_MOVES}
${DECLARE_GO}
BEGIN TRANSACTION;
INSERT INTO @go (id)
  SELECT t.id FROM readpast.Tasks AS t WITH (UPDLOCK, ROWLOCK, READCOMMITTEDLOCK)
  WHERE t.token = @token AND t.status = 'waiting' AND t.suspended IS NOT NULL;
${RESUME}
${MOVES_TO_DELTAS}
${TALLY}
COMMIT TRANSACTION;
SELECT @resumed AS resumed, CASE WHEN EXISTS (SELECT 1 FROM readpast.Tasks AS t WHERE t.token = @token) THEN 1 ELSE 0 END AS found;`;

/** Suspended tasks per queue (over IX_Tasks_suspended: as many rows as are suspended). */
export const SUSPENDED_COUNTS = `SELECT t.queue, SUM(CASE WHEN t.suspended = 'sleep' THEN 1 ELSE 0 END) AS sleeping,
    SUM(CASE WHEN t.suspended = 'event' THEN 1 ELSE 0 END) AS waiting_event
  FROM readpast.Tasks AS t WHERE t.status = 'waiting' AND t.suspended IS NOT NULL
  GROUP BY t.queue ORDER BY t.queue;`;

/**
 * The steps of the deleted tasks in @moves (a delete path's fragment, after their ExecutionLog rows: the lock
 * order's ExecutionLog → TaskSteps), chunked below lock escalation. @step_chunk counts.
 */
export const DELETE_TASK_STEPS = (chunk: number) => `DECLARE @step_chunk int = ${chunk};
WHILE @step_chunk = ${chunk}
BEGIN
  SET @step_chunk = 0;
  WITH doomed AS (
    SELECT TOP (${chunk}) s.task_id FROM readpast.TaskSteps AS s WHERE s.task_id IN (SELECT m.id FROM @moves AS m)
  )
  DELETE FROM doomed;
  SET @step_chunk = @@ROWCOUNT;
END;`;
