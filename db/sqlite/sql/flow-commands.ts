// SQL of the commands on flows: creating one (its row; its tasks and edges are multi-row INSERTs of
// sql/enqueue.ts and sql/edges.ts), cancelling its unfinished nodes, retrying its failed ones.

/** (name, caller, created_at, node_count) */
export const INSERT_FLOW = 'INSERT INTO Flows (name, caller, created_at, node_count) VALUES (?, ?, ?, ?)';

export const FLOW_EXISTS = 'SELECT 1 AS found FROM Flows WHERE id = ?';

/** A flow's waiting and pending nodes (flow_id), over Tasks_flow */
export const FLOW_CANCELLABLE = `SELECT id, queue, batch_id, stage, status FROM Tasks
      WHERE flow_id = ? AND flow_id IS NOT NULL AND status IN ('waiting', 'pending', 'claimed')`;

/** A flow's running nodes are asked to stop (flow_id) */
export const FLOW_REQUEST_CANCEL = `UPDATE Tasks SET cancel_requested = 1
      WHERE flow_id = ? AND flow_id IS NOT NULL AND status = 'running' AND cancel_requested = 0`;

/**
 * A flow's failed nodes (flow_id): dead ones, and cancelled ones no parent cancelled (those come back with
 * their parent); children first, so that a retried parent sees them unfinished (its `run` edges re-wait)
 */
export const FLOW_RETRYABLE = `SELECT id, queue, batch_id, stage, status FROM Tasks
      WHERE flow_id = ? AND flow_id IS NOT NULL AND (status = 'dead' OR (status = 'cancelled' AND blocked_by IS NULL))
      ORDER BY id DESC`;
