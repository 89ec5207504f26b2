// SQL of the workflow reads: a task's parents and children (TaskEdges), a flow with its nodes and edges, the
// list of flows with their counts by status (aggregated from Tasks by Tasks_flow: a flow keeps no counter).

/** (child id, limit) A task's parents by parent id: a range of TaskEdges_child. */
export const TASK_PARENTS = `SELECT p.token, p.flow_node, p.command, p.status, e.on_parent_failure
      FROM TaskEdges e JOIN Tasks p ON p.id = e.parent_id WHERE e.child_id = ? ORDER BY e.parent_id LIMIT ?`;

/** (parent id, limit) A task's children by child id: a range of the primary key. */
export const TASK_CHILDREN = `SELECT c.token, c.flow_node, c.command, c.status, e.on_parent_failure
      FROM TaskEdges e JOIN Tasks c ON c.id = e.child_id WHERE e.parent_id = ? ORDER BY e.child_id LIMIT ?`;

/** (parent id) How many children a task has: a range of the primary key. */
export const CHILD_COUNT = 'SELECT COUNT(*) AS n FROM TaskEdges WHERE parent_id = ?';

/** (id) */
export const GET_FLOW = 'SELECT id, name, caller, created_at, node_count FROM Flows WHERE id = ?';

/** (flow id) Every task of a flow, by id. */
export const FLOW_NODES = `SELECT id, token, flow_node, status, queue, kind, command, attempts, started_at, finished_at, error_message
      FROM Tasks WHERE flow_id = ? AND flow_id IS NOT NULL ORDER BY id`;

/** (flow id) Every edge into a task of the flow, as tokens, by child then parent. */
export const FLOW_EDGES = `SELECT p.token AS parent, c.token AS child, e.on_parent_failure
      FROM Tasks c JOIN TaskEdges e ON e.child_id = c.id JOIN Tasks p ON p.id = e.parent_id
      WHERE c.flow_id = ? AND c.flow_id IS NOT NULL ORDER BY e.child_id, e.parent_id`;

/**
 * A flow has a node not finished (binds: the flow's id): the flow's tasks over Tasks_flow (flow_id only: a status
 * change never touches it) until an open one.
 */
const OPEN_NODE = `EXISTS (SELECT 1 FROM Tasks t WHERE t.flow_id = f.id AND t.status IN ('waiting', 'pending', 'claimed', 'running'))`;

/** The filters of the flow list (Flows f); each `?` binds one value, in the order of the fragments. */
export const FLOW_FILTER = {
  unfinished: OPEN_NODE,
  finished: `NOT ${OPEN_NODE}`,
  cursor: 'f.id < ?',
} as const;

/** A keyset page of flows, newest first: the filters' values, then the limit. */
export function listFlowsSql(filters: readonly string[]): string {
  const where = filters.length ? 'WHERE ' + filters.join(' AND ') : '';
  return `SELECT f.id, f.name, f.caller, f.created_at, f.node_count FROM Flows f ${where} ORDER BY f.id DESC LIMIT ?`;
}

/**
 * (flow ids as a JSON array) The tasks of some flows by status, with the newest finish: ranges of Tasks_flow
 * (one per flow and status).
 */
export const FLOW_COUNTS = `SELECT t.flow_id, t.status, COUNT(*) AS n, MAX(t.finished_at) AS finished_at
      FROM json_each(?) j JOIN Tasks t ON t.flow_id = j.value AND t.flow_id IS NOT NULL
      GROUP BY t.flow_id, t.status`;
