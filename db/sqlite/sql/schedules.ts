// SQL of schedules: the definitions, the due check, and the fires — a fire is a task carrying
// (schedule_name, schedule_fire_at), unique per tick (index Tasks_schedule_fire, migration 4).

const SCHEDULE_COLUMNS = `name, cron, timezone, kind, command, payload, queue, priority, max_attempts, timeout_ms, enabled,
      misfire, overlap, next_fire_at, last_fire_at, last_token, source, declared, version, created_by, created_at,
      updated_by, updated_at`;

export const LIST_SCHEDULES = `SELECT ${SCHEDULE_COLUMNS} FROM Schedules ORDER BY name`;
export const GET_SCHEDULE = `SELECT ${SCHEDULE_COLUMNS} FROM Schedules WHERE name = ?`;

/** The newest fires of one schedule (schedule_name, limit), newest first: index Tasks_schedule. */
export const RECENT_FIRES = `SELECT token, schedule_fire_at, created_at, status FROM Tasks
      WHERE schedule_name = ? AND schedule_name IS NOT NULL ORDER BY id DESC LIMIT ?`;

/** Enabled schedules due at a time (now): index Schedules_due. */
export const DUE_SCHEDULES = `SELECT ${SCHEDULE_COLUMNS} FROM Schedules WHERE enabled = 1 AND next_fire_at <= ?
      ORDER BY next_fire_at, name`;

/** Whether any schedule is due (now): read before the write transaction that fires it. */
export const ANY_DUE = 'SELECT 1 AS due FROM Schedules WHERE enabled = 1 AND next_fire_at <= ? LIMIT 1';

/** Whether a task (token) is still unfinished (waiting, pending or running): the previous fire, for skip_if_running. */
export const TASK_ACTIVE = "SELECT 1 AS active FROM Tasks WHERE token = ? AND status IN ('waiting', 'pending', 'claimed', 'running')";

/**
 * A fire's task (token, queue, kind, command, payload, priority, run_after, max_attempts, timeout_ms, caller,
 * schedule_name, schedule_fire_at — NULL for a manual run — created_at, trace_parent, trace_state). A tick fired
 * already inserts nothing.
 */
export const INSERT_FIRE = `INSERT INTO Tasks (token, queue, kind, command, payload, status, priority, run_after, max_attempts,
      timeout_ms, concurrency_key, caller, schedule_name, schedule_fire_at, created_at, trace_parent, trace_state)
      VALUES (?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT DO NOTHING`;

/** After a check: the next tick, and the last fire when there was one (next_fire_at, last_fire_at, last_token, name). */
export const ADVANCE = `UPDATE Schedules SET next_fire_at = ?, last_fire_at = COALESCE(?, last_fire_at),
      last_token = COALESCE(?, last_token) WHERE name = ?`;

/** A manual run is the last fire too (last_fire_at, last_token, name). */
export const RECORD_RUN = 'UPDATE Schedules SET last_fire_at = ?, last_token = ? WHERE name = ?';

/**
 * A new schedule (name, cron, timezone, kind, command, payload, queue, priority, max_attempts, timeout_ms, enabled,
 * misfire, overlap, next_fire_at, source, declared, created_by, created_at, updated_by, updated_at).
 */
export const INSERT_SCHEDULE = `INSERT INTO Schedules (name, cron, timezone, kind, command, payload, queue, priority, max_attempts,
      timeout_ms, enabled, misfire, overlap, next_fire_at, source, declared, version, created_by, created_at, updated_by,
      updated_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?)
      ON CONFLICT (name) DO NOTHING`;

/**
 * Replace a definition if its version is unchanged (cron, timezone, kind, command, payload, queue, priority,
 * max_attempts, timeout_ms, enabled, misfire, overlap, source, declared, updated_by, updated_at, set_next (0|1),
 * next_fire_at, name, version). The next fire time is kept unless set_next = 1.
 */
export const UPDATE_SCHEDULE = `UPDATE Schedules SET cron = ?, timezone = ?, kind = ?, command = ?, payload = ?, queue = ?,
      priority = ?, max_attempts = ?, timeout_ms = ?, enabled = ?, misfire = ?, overlap = ?, source = ?, declared = ?,
      updated_by = ?, updated_at = ?, version = version + 1,
      next_fire_at = CASE WHEN ? = 1 THEN ? ELSE next_fire_at END
      WHERE name = ? AND version = ?`;

export const DELETE_SCHEDULE = 'DELETE FROM Schedules WHERE name = ?';
