// SQL of durable handlers' steps (lib/engine/types/durable.ts): reading a task's recorded steps, recording one
// (fenced on its attempt), and resuming a suspended task — its step over, the task pending — when its time comes,
// its event arrives or an operator wakes it.

/** A task's recorded steps in order (task_id). */
export const LOAD_STEPS = `SELECT seq, name, kind, status, attempt, tries, started_at, ended_at, result, error_number, error_message,
        error_detail, wake_at, event, event_match, event_id FROM TaskSteps WHERE task_id = ? ORDER BY seq`;

/** How many of a task's attempts ended suspended (id). */
export const SUSPENSIONS = 'SELECT suspensions FROM Tasks WHERE id = ?';

/** The steps of a task's page: a large result only previewed (@shown, @task). */
export const LIST_STEPS = `SELECT seq, name, kind, status, attempt, tries, started_at, ended_at,
        CASE WHEN length(CAST(result AS BLOB)) <= @shown THEN result END AS result,
        CASE WHEN length(CAST(result AS BLOB)) > @shown THEN substr(result, 1, 1024) END AS result_preview,
        COALESCE(length(CAST(result AS BLOB)), 0) AS result_bytes,
        error_number, error_message, error_detail, wake_at, event, event_match, event_id
      FROM TaskSteps WHERE task_id = @task ORDER BY seq`;

const COLUMNS = `task_id, seq, name, kind, status, attempt, started_at, ended_at, result, error_number, error_message, error_detail,
        wake_at, event, event_match`;
const VALUES = `@task, @seq, @name, @kind, @status, @attempt, @started, @ended, @result, @errorNumber, @errorMessage, @errorDetail,
        @wake, @event, @match`;
/** a step recorded again replaces its failed record (a succeeded one is never replaced: it is replayed) */
const REPLACE = `ON CONFLICT (task_id, seq) DO UPDATE SET name = excluded.name, kind = excluded.kind, status = excluded.status,
        attempt = excluded.attempt, tries = TaskSteps.tries + 1, started_at = excluded.started_at, ended_at = excluded.ended_at,
        result = excluded.result, error_number = excluded.error_number, error_message = excluded.error_message,
        error_detail = excluded.error_detail, wake_at = excluded.wake_at, event = excluded.event, event_match = excluded.event_match
      WHERE TaskSteps.status <> 'succeeded'`;

/**
 * Record a step, fenced like a settlement (@worker, @now and the columns): only while its attempt owns its task
 * with a live lease. No row changed: the attempt lost its task.
 */
export const RECORD_STEP = `INSERT INTO TaskSteps (${COLUMNS})
      SELECT ${VALUES} WHERE EXISTS (SELECT 1 FROM Tasks WHERE id = @task AND worker_id = @worker AND attempts = @attempt
        AND status = 'running' AND lease_until >= @now)
      ${REPLACE}`;

/** Record the step a settlement suspends its task on, inside the settlement's fenced transaction (the columns). */
export const PUT_STEP = `INSERT INTO TaskSteps (${COLUMNS}) VALUES (${VALUES}) ${REPLACE}`;

// ---- resuming ----------------------------------------------------------------------------------------

/** The step a task is suspended on is over (ended_at, result, event_id, task_id). */
export const RESOLVE_STEP = `UPDATE TaskSteps SET status = 'succeeded', ended_at = ?, result = ?, event_id = ?
      WHERE task_id = ? AND status IN ('sleeping', 'waiting')`;

/** A suspended task becomes pending, due at once (run_after, id) → what its counts are kept by. */
export const RESUME_TASK = `UPDATE Tasks SET status = 'pending', run_after = ?, suspended = NULL
      WHERE id = ? AND status = 'waiting' AND suspended IS NOT NULL RETURNING id, token, queue, batch_id, stage`;

/** Suspended tasks whose time has come — a sleep over, an event wait timed out (now, limit); over Tasks_suspended. */
export const DUE_SUSPENDED = `SELECT id FROM Tasks WHERE status = 'waiting' AND suspended IS NOT NULL AND run_after <= ?
      ORDER BY run_after LIMIT ?`;

/** A task by token, with whether it is suspended (token). */
export const SUSPENDED_BY_TOKEN = 'SELECT id, status, suspended FROM Tasks WHERE token = ?';

/** Suspended tasks per queue (over Tasks_suspended: as many rows as are suspended). */
export const SUSPENDED_COUNTS = `SELECT queue, COALESCE(SUM(suspended = 'sleep'), 0) AS sleeping,
        COALESCE(SUM(suspended = 'event'), 0) AS waiting_event
      FROM Tasks WHERE status = 'waiting' AND suspended IS NOT NULL GROUP BY queue ORDER BY queue`;

/** A deleted task's steps (task_id). */
export const DELETE_TASK_STEPS = 'DELETE FROM TaskSteps WHERE task_id = ?';
