// SQL of the dependency graph (migration 15): edges written at enqueue and flow creation, a parent's settlement
// moving its children (readiness, failure policies), the re-arming of a retried parent's children, the parents
// a claimed task reads, and what deleting and pruning must respect. The rules: lib/engine/types/flows.ts.

/** Unfinished statuses (the literal matches Tasks_dedup). */
export const OPEN = "('waiting', 'pending', 'claimed', 'running')";

/** A parent by token (token) → what the child's edge and status need */
export const PARENT_BY_TOKEN = 'SELECT id, token, status, flow_id FROM Tasks WHERE token = ?';

/** Bound values per edge row: parent_id, child_id, on_parent_failure, done. */
export const EDGE_COLUMNS = 4;

const edgeTexts = new Map<number, string>();

/** The INSERT of `rows` edges, their EDGE_COLUMNS values one row after the other. */
export function insertEdges(rows: number): string {
  let t = edgeTexts.get(rows);
  if (!t) {
    t = `INSERT INTO TaskEdges (parent_id, child_id, on_parent_failure, done) VALUES ${Array(rows).fill('(?, ?, ?, ?)').join(', ')}`;
    edgeTexts.set(rows, t);
  }
  return t;
}

/** A child created cancelled by a parent already failed (error_message, blocked_by, finished_at, id). */
export const CREATED_BLOCKED = 'UPDATE Tasks SET error_message = ?, blocked_by = ?, finished_at = ? WHERE id = ?';

// ---- a parent settles -------------------------------------------------------------------------------

/**
 * Parents succeeded (a JSON array of their ids): each child has as many parents fewer left as it has edges from
 * them not yet done; a waiting child with none left becomes pending (SET reads the old values) → the children as
 * the tally needs them, `ready` when one became pending. Run before EDGES_DONE.
 */
export const CHILDREN_LEFT = `UPDATE Tasks SET parents_left = parents_left - d.n,
        status = CASE WHEN status = 'waiting' AND parents_left = d.n THEN 'pending' ELSE status END
      FROM (SELECT e.child_id AS id, COUNT(*) AS n FROM TaskEdges e
        WHERE e.parent_id IN (SELECT value FROM json_each(?)) AND e.done = 0 GROUP BY e.child_id) AS d
      WHERE Tasks.id = d.id RETURNING queue, batch_id, stage, status = 'pending' AND parents_left = 0 AS ready`;

/** Parents succeeded: their edges not yet done become done (a JSON array of parent ids) */
export const EDGES_DONE = 'UPDATE TaskEdges SET done = 1 WHERE parent_id IN (SELECT value FROM json_each(?)) AND done = 0';

/** One edge done under policy run (parent_id, child_id). */
export const EDGE_DONE = 'UPDATE TaskEdges SET done = 1 WHERE parent_id = ? AND child_id = ? AND done = 0';

/**
 * `n` parents fewer left (@n, @id): a waiting child with no parent left becomes pending (SET reads the old
 * values) → the child as the tally needs it, `ready` when it became pending
 */
export const PARENTS_LEFT = `UPDATE Tasks SET parents_left = parents_left - @n,
        status = CASE WHEN status = 'waiting' AND parents_left = @n THEN 'pending' ELSE status END
      WHERE id = @id RETURNING queue, batch_id, stage, status = 'pending' AND parents_left = 0 AS ready`;

/** A failed parent (parent_id) → its waiting children whose edge is not done, with the edge's policy */
export const WAITING_CHILDREN = `SELECT e.child_id, e.on_parent_failure FROM TaskEdges e JOIN Tasks c ON c.id = e.child_id
      WHERE e.parent_id = ? AND e.done = 0 AND c.status = 'waiting' ORDER BY e.child_id`;

export const TASK_TOKEN_STATUS = 'SELECT token, status FROM Tasks WHERE id = ?';

/** A waiting child cancelled by its parent (error_message, blocked_by, finished_at, id) → what the tally needs */
export const CANCEL_BLOCKED = `UPDATE Tasks SET status = 'cancelled', error_number = NULL, error_message = ?, error_detail = NULL,
        blocked_by = ?, finished_at = ? WHERE id = ? AND status = 'waiting' RETURNING queue, batch_id, stage`;

// ---- a parent is retried ----------------------------------------------------------------------------

/** Back to pending — waiting while a parent is unfinished —, due now, one more attempt if used up (run_after, id). */
export const RETRY_TASK = `UPDATE Tasks SET status = CASE WHEN parents_left > 0 THEN 'waiting' ELSE 'pending' END, run_after = ?,
      finished_at = NULL, cancel_requested = 0, max_attempts = MAX(max_attempts, attempts + 1), suspended = NULL
      WHERE id = ? RETURNING status`;

/**
 * A task coming back (retried, or re-armed by a parent's retry): its edges done again as its parents stand now —
 * succeeded, or failed under `run` — since a parent that settled while the task was cancelled left its edge as
 * it was (child_id)
 */
export const SYNC_EDGES = `UPDATE TaskEdges SET done = EXISTS (SELECT 1 FROM Tasks p WHERE p.id = TaskEdges.parent_id
        AND (p.status = 'succeeded' OR (TaskEdges.on_parent_failure = 'run' AND p.status IN ('dead', 'cancelled'))))
      WHERE child_id = ?`;

/** Its parents left counted again from its edges (id) */
export const COUNT_LEFT = `UPDATE Tasks SET parents_left = (SELECT COUNT(*) FROM TaskEdges e WHERE e.child_id = Tasks.id AND e.done = 0)
      WHERE id = ?`;

export const PARENTS_LEFT_OF = 'SELECT parents_left FROM Tasks WHERE id = ?';

/** A retried task is no longer cancelled by its parent (id). */
export const UNBLOCK = 'UPDATE Tasks SET blocked_by = NULL WHERE id = ? AND blocked_by IS NOT NULL';

/**
 * The children a parent's failure cancelled come back waiting, their parents left counted again from their
 * edges — unless an unfinished task took their dedup key meanwhile (parent_id, blocked_by) → the re-armed
 */
export const REARM_BLOCKED = `UPDATE Tasks SET status = 'waiting', blocked_by = NULL, finished_at = NULL, error_message = NULL,
        parents_left = (SELECT COUNT(*) FROM TaskEdges e WHERE e.child_id = Tasks.id AND e.done = 0)
      WHERE id IN (SELECT child_id FROM TaskEdges WHERE parent_id = ?) AND blocked_by = ? AND status = 'cancelled'
        AND (dedup_key IS NULL OR NOT EXISTS (SELECT 1 FROM Tasks o WHERE o.dedup_key = Tasks.dedup_key
          AND o.dedup_key IS NOT NULL AND o.status IN ${OPEN}))
      RETURNING id, queue, batch_id, stage`;

/**
 * A retried parent's `run` edges let through (done, the parent not succeeded) to children not started (parent_id):
 * a child suspended by its durable handler has started
 */
export const RUN_EDGES_TO_OPEN = `SELECT e.child_id, c.status FROM TaskEdges e JOIN Tasks c ON c.id = e.child_id
      WHERE e.parent_id = ? AND e.done = 1 AND c.status IN ('waiting', 'pending') AND c.suspended IS NULL`;

/** (parent_id, child_id) */
export const EDGE_UNDONE = 'UPDATE TaskEdges SET done = 0 WHERE parent_id = ? AND child_id = ?';

/** One parent more left (id): a pending child waits again → what the tally needs */
export const PARENT_BACK = `UPDATE Tasks SET parents_left = parents_left + 1,
        status = CASE WHEN status = 'pending' THEN 'waiting' ELSE status END
      WHERE id = ? RETURNING queue, batch_id, stage`;

// ---- claim, delete, prune ---------------------------------------------------------------------------

/** Claimed tasks' parents with their results, by child and parent id (a JSON array of child ids) */
export const PARENTS_OF = `SELECT e.child_id, p.token, p.flow_node, p.command, p.status, p.result, p.attempt_trace
      FROM TaskEdges e JOIN Tasks p ON p.id = e.parent_id
      WHERE e.child_id IN (SELECT value FROM json_each(?)) ORDER BY e.child_id, e.parent_id`;

/** Whether an unfinished task depends on this one (parent_id) */
export const HAS_OPEN_CHILD = `SELECT 1 AS open FROM TaskEdges e JOIN Tasks c ON c.id = e.child_id
      WHERE e.parent_id = ? AND c.status IN ${OPEN} LIMIT 1`;

/** A deleted task's edges, both ways (id, id). */
export const DELETE_EDGES_OF = 'DELETE FROM TaskEdges WHERE parent_id = ?';
export const DELETE_EDGES_TO = 'DELETE FROM TaskEdges WHERE child_id = ?';
