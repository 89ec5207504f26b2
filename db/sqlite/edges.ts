// The dependency graph's steps (lib/engine/types/flows.ts has the rules), each called by every place that
// needs it — never copied: a parent's success readies its children; a parent dead or cancelled applies each
// child edge's policy, transitively (iterative: flows of 10,000 nodes); a retried task goes back waiting while
// a parent is unfinished and re-arms what its failure did; deleting and pruning keep the edges consistent.
// Every status change goes through the tally.
import type { ClaimedTask, TaskStatus } from '../../lib/engine/types';
import type { Db } from './connection';
import * as S from './sql/edges';
import { stmt } from './stmt';
import type { Tally, TaskKey } from './tally';

type Moved = TaskKey & { ready: number };

/**
 * Parents succeeded (two statements for a settlement's worth): their children's edges are done; those with no
 * parent left go pending. True when one did.
 */
export function parentsSucceeded(db: Db, parentIds: readonly number[], tally: Tally): boolean {
  if (parentIds.length === 0) return false;
  const ids = JSON.stringify(parentIds);
  const children = stmt(db, S.CHILDREN_LEFT).all(ids) as Moved[];
  if (children.length === 0) return false;
  stmt(db, S.EDGES_DONE).run(ids);
  let ready = false;
  for (const m of children) {
    if (!m.ready) continue;
    tally.task(m, 'waiting', 'pending');
    ready = true;
  }
  return ready;
}

/** `n` of a child's edges became done; true when the child went from waiting to pending. */
function parentsLeft(db: Db, childId: number, n: number, tally: Tally): boolean {
  const m = stmt(db, S.PARENTS_LEFT).get({ id: childId, n }) as Moved | undefined;
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
        ready = parentsLeft(db, c.child_id, 1, tally) || ready;
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
  syncEdges(db, t.id);
  const { status } = stmt(db, S.RETRY_TASK).get(now, t.id) as { status: TaskStatus };
  tally.task(t, prior, status);
  rearm(db, t.id, tally);
  return status;
}

/** A task coming back: its edges and parents left as its parents stand now (sql/edges.ts SYNC_EDGES). */
function syncEdges(db: Db, id: number): void {
  if (stmt(db, S.SYNC_EDGES).run(id).changes > 0) stmt(db, S.COUNT_LEFT).run(id);
}

/** A task coming back another way (editTask): its edges synced, how many parents it still waits for. */
export function parentsLeftNow(db: Db, id: number): number {
  syncEdges(db, id);
  return (stmt(db, S.PARENTS_LEFT_OF).get(id) as { parents_left: number }).parents_left;
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
      syncEdges(db, c.id);
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

/** Claimed tasks' parents with their results (succeeded ones; null for others), by parent id: one read for them all. */
export function readParents(db: Db, tasks: ClaimedTask[]): void {
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const rows = stmt(db, S.PARENTS_OF).all(JSON.stringify([...byId.keys()])) as {
    child_id: number;
    token: string;
    flow_node: string | null;
    command: string;
    status: TaskStatus;
    result: string | null;
    attempt_trace: string | null;
  }[];
  for (const r of rows) {
    const child = byId.get(r.child_id)!;
    // the span of the parent's last attempt: the child's links to it (lib/engine/tracing-attempt.ts)
    if (r.attempt_trace !== null) (child.parentTraces ??= []).push(r.attempt_trace);
    child.parents.push({
      token: r.token,
      nodeId: r.flow_node,
      command: r.command,
      status: r.status,
      result: r.status === 'succeeded' && r.result !== null ? JSON.parse(r.result) : null,
    });
  }
}
