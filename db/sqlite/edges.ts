// The dependency graph's steps (lib/engine/types/flows.ts has the rules), each called by every place that
// needs it — never copied: a parent's success readies its children; a parent dead or cancelled applies each
// child edge's policy, transitively (iterative: flows of 10,000 nodes); a retried task goes back waiting while
// a parent is unfinished and re-arms what its failure did; deleting and pruning keep the edges consistent.
// Every status change goes through the tally.
import type { ParentResult, TaskStatus } from '../../lib/engine/types';
import type { Db } from './connection';
import * as S from './sql/edges';
import { stmt } from './stmt';
import type { Tally, TaskKey } from './tally';

type Moved = TaskKey & { ready: number };

/** A parent succeeded: its children's edges are done; those with no parent left go pending. True when one did. */
export function parentSucceeded(db: Db, parentId: number, tally: Tally): boolean {
  const children = stmt(db, S.EDGES_DONE).all(parentId) as { child_id: number }[];
  let ready = false;
  for (const c of children) ready = parentLeft(db, c.child_id, tally) || ready;
  return ready;
}

/** One of a child's edges became done; true when the child went from waiting to pending. */
function parentLeft(db: Db, childId: number, tally: Tally): boolean {
  const m = stmt(db, S.PARENT_LEFT).get(childId) as Moved | undefined;
  if (!m?.ready) return false;
  tally.task(m, 'waiting', 'pending');
  return true;
}

/**
 * Parents went dead or were cancelled: each waiting child's edge policy applies — `cancel` cancels it (the
 * error naming the parent, blocked_by the parent) and then its own children in turn; `run` counts the edge as
 * done; `wait` leaves it. True when a child became pending (under `run`).
 */
export function parentsFailed(db: Db, parentIds: Iterable<number>, tally: Tally, now: number): boolean {
  const todo = [...parentIds];
  let ready = false;
  while (todo.length) {
    const parentId = todo.pop()!;
    const children = stmt(db, S.WAITING_CHILDREN).all(parentId) as { child_id: number; on_parent_failure: string }[];
    if (children.length === 0) continue;
    const p = stmt(db, S.TASK_TOKEN_STATUS).get(parentId) as { token: string; status: TaskStatus };
    const why = `parent ${p.token} ${p.status === 'dead' ? 'dead' : 'cancelled'}`;
    for (const c of children) {
      if (c.on_parent_failure === 'run') {
        stmt(db, S.EDGE_DONE).run(parentId, c.child_id);
        ready = parentLeft(db, c.child_id, tally) || ready;
      } else if (c.on_parent_failure === 'cancel') {
        const t = stmt(db, S.CANCEL_BLOCKED).get(why, parentId, now, c.child_id) as TaskKey | undefined;
        if (!t) continue;
        tally.task(t, 'waiting', 'cancelled');
        todo.push(c.child_id);
      }
    }
  }
  return ready;
}

/**
 * Retry a dead or cancelled task (`prior`): back to pending, or waiting while a parent is unfinished; then
 * re-arm its children (see rearm). Returns its new status.
 */
export function retryTask(db: Db, t: TaskKey & { id: number }, prior: string, tally: Tally, now: number): TaskStatus {
  const { status } = stmt(db, S.RETRY_TASK).get(now, t.id) as { status: TaskStatus };
  tally.task(t, prior, status);
  rearm(db, t.id, tally);
  return status;
}

/**
 * A task is unfinished again (retried): the children its failure cancelled come back waiting (and theirs,
 * transitively), and its `run` edges to children not yet started count as unfinished again.
 */
export function rearm(db: Db, taskId: number, tally: Tally): void {
  stmt(db, S.UNBLOCK).run(taskId);
  const todo = [taskId];
  while (todo.length) {
    const id = todo.pop()!;
    const back = stmt(db, S.REARM_BLOCKED).all(id, id) as (TaskKey & { id: number })[];
    for (const c of back) {
      tally.task(c, 'cancelled', 'waiting');
      todo.push(c.id);
    }
  }
  const letThrough = stmt(db, S.RUN_EDGES_TO_OPEN).all(taskId) as { child_id: number; status: string }[];
  for (const c of letThrough) {
    stmt(db, S.EDGE_UNDONE).run(taskId, c.child_id);
    const t = stmt(db, S.PARENT_BACK).get(c.child_id) as TaskKey;
    if (c.status === 'pending') tally.task(t, 'pending', 'waiting');
  }
}

/** Whether an unfinished task depends on this one (it may not be deleted). */
export function hasOpenChild(db: Db, taskId: number): boolean {
  return stmt(db, S.HAS_OPEN_CHILD).get(taskId) !== undefined;
}

/** A task being deleted: its edges go, both ways. */
export function dropEdges(db: Db, taskId: number): void {
  stmt(db, S.DELETE_EDGES_OF).run(taskId);
  stmt(db, S.DELETE_EDGES_TO).run(taskId);
}

/** The parents of a claimed task with their results (succeeded ones; null for others), by parent id. */
export function parentsOf(db: Db, taskId: number): ParentResult[] {
  const rows = stmt(db, S.PARENTS_OF).all(taskId) as {
    token: string;
    flow_node: string | null;
    command: string;
    status: TaskStatus;
    result: string | null;
  }[];
  return rows.map((r) => ({
    token: r.token,
    nodeId: r.flow_node,
    command: r.command,
    status: r.status,
    result: r.status === 'succeeded' && r.result !== null ? JSON.parse(r.result) : null,
  }));
}
