// Row shapes of the workflow reads both stores share — a task's parents and children, a flow, its nodes and
// edges, its counts by status — and their one mapping to the engine's types, given a dialect's column
// converters (rows.ts). No SQL, no driver.
import type {
  FlowCounts,
  FlowEdgeView,
  FlowNodeView,
  FlowSummary,
  ParentFailurePolicy,
  TaskKind,
  TaskLink,
  TaskStatus,
} from '../../lib/engine/types';
import { OPEN_STATUSES, TASK_STATUSES } from '../../lib/engine/types';
import type { Cols, Converters } from './rows';

/** A parent or child of a task: the other task's columns and the edge's policy. */
export interface LinkRow {
  token: string;
  flow_node: string | null;
  command: string;
  status: string;
  on_parent_failure: string;
}

export interface FlowRow<C extends Cols> {
  id: C['bigint'];
  name: string | null;
  caller: string | null;
  created_at: C['time'];
  node_count: number;
}

export interface FlowNodeRow<C extends Cols> {
  id: C['bigint'];
  token: string;
  flow_node: string | null;
  status: string;
  queue: string;
  kind: string;
  command: string;
  attempts: number;
  started_at: C['time'] | null;
  finished_at: C['time'] | null;
  error_message: string | null;
}

export interface FlowEdgeRow {
  parent: string;
  child: string;
  on_parent_failure: string;
}

/** The tasks of a flow with one status, and the newest finish among them (null: none finished). */
export interface FlowCountRow<C extends Cols> {
  flow_id: C['bigint'];
  status: string;
  n: number;
  finished_at: C['time'] | null;
}

/** Every status at 0. */
export function emptyFlowCounts(): FlowCounts {
  return Object.fromEntries(TASK_STATUSES.map((s) => [s, 0])) as FlowCounts;
}

/** The row mappers of the workflow reads of one dialect. */
export function flowMappers<C extends Cols>(c: Converters<C>) {
  const timeOrNull = (v: C['time'] | null): Date | null => (v === null ? null : c.time(v));

  function taskLink(r: LinkRow): TaskLink {
    return {
      token: c.token(r.token),
      nodeId: r.flow_node,
      command: r.command,
      status: r.status as TaskStatus,
      onParentFailure: r.on_parent_failure as ParentFailurePolicy,
    };
  }

  function flowNode(r: FlowNodeRow<C>): FlowNodeView {
    return {
      nodeId: r.flow_node,
      token: c.token(r.token),
      status: r.status as TaskStatus,
      queue: r.queue,
      kind: r.kind as TaskKind,
      command: r.command,
      attempts: r.attempts,
      startedAt: timeOrNull(r.started_at),
      finishedAt: timeOrNull(r.finished_at),
      error: r.error_message,
    };
  }

  function flowEdge(r: FlowEdgeRow): FlowEdgeView {
    return { parent: c.token(r.parent), child: c.token(r.child), onParentFailure: r.on_parent_failure as ParentFailurePolicy };
  }

  /**
   * A flow as listed, from its row and its tasks' counts by status (`counts`: that flow's rows). finishedAt: the
   * newest finish once no task of the flow is unfinished (null while one is, or when it has no task left).
   */
  function flowSummary(r: FlowRow<C>, counts: readonly FlowCountRow<C>[]): FlowSummary {
    const byStatus = emptyFlowCounts();
    let newest: Date | null = null;
    for (const k of counts) {
      if (k.status in byStatus) byStatus[k.status as TaskStatus] += k.n;
      const at = timeOrNull(k.finished_at);
      if (at && (!newest || at > newest)) newest = at;
    }
    const open = OPEN_STATUSES.some((s) => byStatus[s] > 0);
    return {
      id: c.bigint(r.id),
      name: r.name,
      caller: r.caller,
      createdAt: c.time(r.created_at),
      finishedAt: open ? null : newest,
      nodes: r.node_count,
      counts: byStatus,
    };
  }

  return { taskLink, flowNode, flowEdge, flowSummary };
}
