// A task enqueued with dependencies (dependsOn): its parents read — each must exist —, its status decided
// from theirs, its edges written with it (lib/engine/types/flows.ts has the rules). The store holds the file's
// write lock for the whole transaction, so no parent settles between being read and its edge being written.
import { ValidationError } from '../../lib/engine/errors';
import type { Dependency, TaskStatus } from '../../lib/engine/types';
import type { Db } from './connection';
import { insertRows } from './insert-rows';
import { CREATED_BLOCKED, EDGE_COLUMNS, insertEdges, PARENT_BY_TOKEN } from './sql/edges';
import { stmt } from './stmt';

/** What a child's parents make of it. */
export interface Parents {
  status: TaskStatus;
  /** the linked columns of its row: status, flow_id, flow_node, parent_count, parents_left */
  columns: unknown[];
  /** its edges' values (EDGE_COLUMNS each) less the child's id: parent_id, on_parent_failure, done */
  edges: [number, string, number][];
  /** the failed parent that cancels it at once (policy cancel), and why */
  blocked: { parentId: number; why: string } | null;
}

/**
 * Read a child's parents (`prefix` + `dependsOn.<i>` names an unknown one): an edge per parent, done when
 * it succeeded — or failed under policy `run`; a parent dead or cancelled under `cancel` cancels the child.
 * The child joins the flow of its first parent that has one.
 */
export function resolveParents(db: Db, deps: readonly Dependency[], prefix: string): Parents {
  const edges: Parents['edges'] = [];
  let blocked: Parents['blocked'] = null;
  let flowId: number | null = null;
  let left = 0;
  deps.forEach((d, i) => {
    const p = stmt(db, PARENT_BY_TOKEN).get(d.token) as
      | { id: number; token: string; status: TaskStatus; flow_id: number | null }
      | undefined;
    if (!p) throw new ValidationError(`${prefix}dependsOn.${i}`, `no task with token ${d.token}`);
    flowId ??= p.flow_id;
    const failed = p.status === 'dead' || p.status === 'cancelled';
    const done = p.status === 'succeeded' || (failed && d.onParentFailure === 'run') ? 1 : 0;
    if (failed && d.onParentFailure === 'cancel' && !blocked) blocked = { parentId: p.id, why: `parent ${p.token} ${p.status}` };
    if (!done) left++;
    edges.push([p.id, d.onParentFailure, done]);
  });
  const status: TaskStatus = blocked ? 'cancelled' : left > 0 ? 'waiting' : 'pending';
  return { status, columns: [status, flowId, null, deps.length, left], edges, blocked };
}

/** Write a new child's edges (and, when a parent's failure cancelled it, why and since when). */
export function linkParents(db: Db, childId: number, parents: Parents, now: number): void {
  const values: unknown[] = [];
  for (const [parentId, policy, done] of parents.edges) values.push(parentId, childId, policy, done);
  insertRows(db, values, insertEdges, EDGE_COLUMNS);
  if (parents.blocked) stmt(db, CREATED_BLOCKED).run(parents.blocked.why, parents.blocked.parentId, now, childId);
}
