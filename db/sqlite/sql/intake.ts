// SQL of the intake (db/sqlite/intake.ts): a plain task enqueued alone appended, and every appended task moved into Tasks.

/** Whether any task waits in the intake. */
export const INTAKE_ANY = 'SELECT 1 FROM Intake LIMIT 1';

/**
 * One task appended (token, queue, kind, command, payload, priority, run_after, max_attempts, timeout_ms,
 * concurrency_key, caller, created_at, trace_parent, trace_state).
 */
export const APPEND_INTAKE = `INSERT INTO Intake (token, queue, kind, command, payload, priority, run_after, max_attempts,
          timeout_ms, concurrency_key, caller, created_at, trace_parent, trace_state)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/** The queues of the tasks in the intake, created with the defaults if one was deleted meanwhile (created_at). */
export const ENSURE_INTAKE_QUEUES = `INSERT INTO Queues (name, created_at) SELECT DISTINCT queue, ? FROM Intake WHERE true
          ON CONFLICT (name) DO NOTHING`;

/** The tasks in the intake per queue and command: what moving them adds to the kept counts. */
export const INTAKE_COUNTS = 'SELECT queue, command, COUNT(*) AS n FROM Intake GROUP BY queue, command';

/** Every task in the intake written to Tasks as pending, in the order they were appended. */
export const ADMIT_INTAKE = `INSERT INTO Tasks (token, queue, kind, command, payload, status, priority, run_after, max_attempts,
          timeout_ms, concurrency_key, caller, created_at, trace_parent, trace_state)
          SELECT token, queue, kind, command, payload, 'pending', priority, run_after, max_attempts,
          timeout_ms, concurrency_key, caller, created_at, trace_parent, trace_state
          FROM Intake ORDER BY id`;

export const CLEAR_INTAKE = 'DELETE FROM Intake';

/**
 * A task still in the intake as a Tasks row would show it (id 0: none yet; pending, no attempt): what a read by token
 * finds while another process's write lock keeps it from being moved (token).
 */
export const GET_INTAKE_TASK = `SELECT 0 AS id, token, queue, kind, command, payload, 'pending' AS status, priority, run_after,
          0 AS attempts, max_attempts, timeout_ms, NULL AS dedup_key, concurrency_key, caller, NULL AS batch_id, NULL AS stage,
          NULL AS lease_until, NULL AS worker_id, NULL AS token_no, 0 AS cancel_requested, created_at, NULL AS started_at,
          NULL AS finished_at, NULL AS error_number, NULL AS error_message, NULL AS error_detail, NULL AS result,
          NULL AS schedule_name, NULL AS schedule_fire_at, NULL AS fingerprint, NULL AS flow_id, NULL AS flow_node,
          0 AS parent_count, 0 AS parents_left, NULL AS blocked_by, trace_parent, trace_state, NULL AS attempt_trace,
          NULL AS suspended, 0 AS suspensions
          FROM Intake WHERE token = ?`;
