// SQL of housekeeping: rescuing expired leases, marking lost workers, the depth sample, and pruning
// old finished tasks with what else has aged out.

/** Open attempts whose task's lease expired (now), with the lease's end and its worker's last heartbeat. */
export const EXPIRED_ATTEMPTS = `SELECT t.id, t.queue, t.batch_id, t.stage, t.token_no, t.attempts, t.suspensions, t.max_attempts,
        t.worker_id, t.lease_until, w.heartbeat_at
      FROM ExecutionLog l CROSS JOIN Tasks t ON t.id = l.task_id AND t.attempts = l.attempt
      LEFT JOIN Workers w ON w.worker_id = t.worker_id
      WHERE l.ended_at IS NULL AND t.status = 'running' AND t.lease_until < ?`;

/**
 * Tasks claimed ahead whose lease expired (now): their claimer never started them nor gave them back. Over
 * Tasks_running, which holds only running and claimed tasks.
 */
export const EXPIRED_CLAIMS = `SELECT id, queue, batch_id, stage, token_no, attempts FROM Tasks INDEXED BY Tasks_running
      WHERE status IN ('claimed', 'running') AND status = 'claimed' AND lease_until < ?`;

/** A lapsed claim goes back to pending, due as it was, nothing counted or logged (id). */
export const RELEASE_CLAIM =
  "UPDATE Tasks SET status = 'pending', lease_until = NULL, worker_id = NULL WHERE id = ? AND status = 'claimed'";

/** Attempts the rescue abandoned that ended at or after a time, by queue and reason (over ExecutionLog_unsuccessful). */
export const ABANDONED_SINCE = `SELECT l.queue, COALESCE(l.abandon_reason, 'unknown') AS reason, COUNT(*) AS n
      FROM ExecutionLog l WHERE l.outcome = 'abandoned' AND l.ended_at >= ?
      GROUP BY l.queue, COALESCE(l.abandon_reason, 'unknown') ORDER BY l.queue, reason`;

/** Why the rescue abandoned the attempt (reason, task id, attempt). */
export const SET_ABANDON_REASON = 'UPDATE ExecutionLog SET abandon_reason = ? WHERE task_id = ? AND attempt = ?';

/** Back to pending (due now) or dead (status, dead, now, dead, now, error_message, id). */
export const RESCUE_TASK = `UPDATE Tasks SET status = ?, run_after = CASE WHEN ? THEN run_after ELSE ? END,
        finished_at = CASE WHEN ? THEN ? ELSE NULL END,
        lease_until = NULL, error_number = NULL, error_message = ?, error_detail = NULL WHERE id = ?`;

/** An attempt left open though its task moved on (should not happen; keeps ExecutionStatus true) (ended_at). */
export const CLOSE_ORPHAN_ATTEMPTS = `UPDATE ExecutionLog SET ended_at = ?, outcome = 'abandoned',
      error_message = 'attempt no longer owns its task'
      WHERE ended_at IS NULL AND NOT EXISTS (SELECT 1 FROM Tasks t WHERE t.id = ExecutionLog.task_id AND t.status = 'running'
        AND t.attempts = ExecutionLog.attempt)`;

/**
 * Whether the rescue has anything to do (now): a running or claimed task whose lease ended, or an attempt left open though its
 * task moved on. Read first, outside any write transaction: an idle store takes no write lock for it.
 */
export const RESCUE_DUE = `SELECT 1 AS due WHERE EXISTS (SELECT 1 FROM Tasks t INDEXED BY Tasks_running
        WHERE t.status IN ('claimed', 'running') AND t.lease_until < ?)
      OR EXISTS (SELECT 1 FROM ExecutionLog l WHERE l.ended_at IS NULL AND NOT EXISTS (SELECT 1 FROM Tasks t
        WHERE t.id = l.task_id AND t.status = 'running' AND t.attempts = l.attempt))`;

/** Whether a worker is silent past the bound (heartbeat older than): read before MARK_LOST_WORKERS writes. */
export const LOST_WORKERS_DUE = "SELECT 1 AS due FROM Workers WHERE state IN ('running', 'stopping') AND heartbeat_at < ? LIMIT 1";

/** (heartbeat older than) */
export const MARK_LOST_WORKERS = "UPDATE Workers SET state = 'lost' WHERE state IN ('running', 'stopping') AND heartbeat_at < ?";

export const PENDING_DEPTH = "SELECT COALESCE(SUM(n), 0) AS n FROM QueueCounts WHERE status = 'pending'";
/** (sec, depth) */
export const SAMPLE_DEPTH = 'INSERT INTO Metrics (sec, depth) VALUES (?, ?) ON CONFLICT (sec) DO UPDATE SET depth = excluded.depth';

// ---- pruning ----------------------------------------------------------------------------------------

const OPEN = "('waiting', 'pending', 'claimed', 'running')";

/** Whether an unfinished task depends on task `t` (an SQL expression). */
const OPEN_CHILD = (t: string) => `EXISTS (SELECT 1 FROM TaskEdges e JOIN Tasks c ON c.id = e.child_id
        WHERE e.parent_id = ${t} AND c.status IN ${OPEN})`;

/**
 * Up to `limit` terminal tasks finished before the cutoff (cutoff, limit): not a flow's (they go with their
 * flow) nor one an unfinished task depends on.
 */
export const PRUNE_TASKS = `SELECT id, queue, batch_id, stage, status FROM Tasks WHERE status IN ('succeeded', 'dead', 'cancelled')
      AND finished_at < ? AND flow_id IS NULL AND NOT ${OPEN_CHILD('Tasks.id')} LIMIT ?`;

/**
 * Up to `limit` flows created and finished before the cutoff (cutoff, cutoff, limit): no node unfinished, the
 * last finished before the cutoff, no unfinished task outside depending on one of them (over Tasks_flow).
 */
export const PRUNABLE_FLOWS = `SELECT f.id FROM Flows f WHERE f.created_at < ?
      AND NOT EXISTS (SELECT 1 FROM Tasks t WHERE t.flow_id = f.id AND t.status IN ${OPEN})
      AND COALESCE((SELECT MAX(t.finished_at) FROM Tasks t WHERE t.flow_id = f.id), 0) < ?
      AND NOT EXISTS (SELECT 1 FROM Tasks t WHERE t.flow_id = f.id AND ${OPEN_CHILD('t.id')})
      ORDER BY f.id LIMIT ?`;

/** A flow's tasks (flow_id) */
export const FLOW_TASKS = 'SELECT id, queue, batch_id, stage, status FROM Tasks WHERE flow_id = ? AND flow_id IS NOT NULL';
export const DELETE_FLOW = 'DELETE FROM Flows WHERE id = ?';

export const PRUNE_WORKERS = "DELETE FROM Workers WHERE state IN ('stopped', 'lost') AND heartbeat_at < ?";
/** (oldest second kept) */
export const PRUNE_METRICS = 'DELETE FROM Metrics WHERE sec < ?';
export const PRUNE_QUEUE_COUNTS = "DELETE FROM QueueCounts WHERE n = 0 AND status IN ('succeeded', 'dead', 'cancelled')";
export const PRUNE_BATCH_STAGES = `DELETE FROM BatchStages WHERE batch_id IN (SELECT id FROM Batches
      WHERE status IN ('completed', 'cancelled', 'aborted') AND completed_at < ?) AND total = 0`;
export const PRUNE_BATCHES = `DELETE FROM Batches WHERE status IN ('completed', 'cancelled', 'aborted') AND completed_at < ?
      AND NOT EXISTS (SELECT 1 FROM BatchStages s WHERE s.batch_id = Batches.id)`;
export const PRUNE_QUEUE_CHANGES = 'DELETE FROM QueueChanges WHERE at < ?';
