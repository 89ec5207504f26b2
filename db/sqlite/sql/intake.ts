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
