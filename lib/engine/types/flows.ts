// Workflows: tasks that run after other tasks (a DAG of dependencies), and flows — graphs created at once.
//
// The rules every store applies (db/contract/workflows.ts holds both stores to them):
// - An edge (parent → child) says: the child starts only after the parent succeeded. A child with an
//   unfinished parent is `waiting`: never claimed, until every parent has succeeded (or failed under the
//   `run` policy); it then becomes `pending` in the same transaction as the parent's settlement (readiness is
//   checked when a parent settles, for that parent's children only; no periodic scan).
// - A parent that already succeeded when its child is enqueued counts as done.
// - A parent that goes dead or is cancelled (by an operator, a flow cancel, its batch, or a cancelled parent of
//   its own) applies each child edge's policy: `cancel` (default) cancels the waiting child with the error
//   `parent <token> dead` (or `… cancelled`), transitively down its own children; `run` counts the edge as
//   done (the child runs anyway); `wait` leaves the child waiting for an operator (retry the parent, or cancel
//   the child). A parent already dead or cancelled at the child's enqueue applies the policy at once.
// - Retrying a dead or cancelled parent re-arms the children it cancelled (they return to waiting, and theirs
//   transitively); a `run` edge whose child still waits counts as unfinished again. Retrying any task puts it
//   back to `waiting` (not pending) while it has unfinished parents.
// - A task in a batch takes no dependencies (stages order batches), and a flow's nodes take no dedup key.
// - Deleting a task some unfinished task depends on is refused (`conflict`); pruning removes a flow's tasks
//   only once every node of the flow is finished and the newest finished before the retention cutoff, and never
//   a task an unfinished task depends on. Edges go with their child.

import type { EnqueueInput, ParentFailurePolicy, TaskKind, TaskStatus } from './tasks';

/** One node of a validated flow: a task as for enqueue (no dedup key, no batch) with its id within the flow. */
export interface FlowNodeInput {
  /** the node's id within the flow (≤ MAX_FLOW_NODE_ID_LENGTH characters) */
  id: string;
  task: EnqueueInput;
  /** parents by node id, each with its policy */
  dependsOn: { id: string; onParentFailure: ParentFailurePolicy }[];
}

/** A validated flow: nodes in an order where every parent comes before its children (topological). */
export interface FlowInput {
  name: string | null;
  caller: string | null;
  nodes: FlowNodeInput[];
}

export interface FlowResult {
  flowId: number;
  /** node id → task token */
  tokens: Record<string, string>;
}

/** Tasks of a flow by status (waiting, pending, running, succeeded, dead, cancelled). */
export type FlowCounts = Record<TaskStatus, number>;

/** A flow, as listed. `finishedAt`: when its last node finished (null while any node is unfinished). */
export interface FlowSummary {
  id: number;
  name: string | null;
  caller: string | null;
  createdAt: Date;
  finishedAt: Date | null;
  nodes: number;
  counts: FlowCounts;
}

export interface FlowNodeView {
  /** the node's id in the flow (null: a task added later with dependsOn on a node of the flow) */
  nodeId: string | null;
  token: string;
  status: TaskStatus;
  queue: string;
  kind: TaskKind;
  command: string;
  attempts: number;
  startedAt: Date | null;
  finishedAt: Date | null;
  /** the last error's message (dead, or cancelled by a parent) */
  error: string | null;
}

export interface FlowEdgeView {
  parent: string;
  child: string;
  onParentFailure: ParentFailurePolicy;
}

/** A flow with its nodes (ordered by task id) and its edges (tokens). */
export interface FlowDetail extends FlowSummary {
  nodeList: FlowNodeView[];
  edges: FlowEdgeView[];
}

export interface FlowFilter {
  /** only flows with an unfinished node (true) or only finished flows (false) */
  unfinished?: boolean;
  /** flows with an id below this (keyset; newest first) */
  cursor?: number;
  limit?: number;
}

/** A parent's outcome as its child's attempt sees it (ctx.parents; @Parents of a sql/procedure task). */
export interface ParentResult {
  token: string;
  /** its node id when both are nodes of one flow */
  nodeId: string | null;
  command: string;
  /** succeeded parents: their result; others (run policy): null */
  status: TaskStatus;
  result: unknown;
}

export type CancelFlowResult = { result: 'cancelled' | 'not_found'; cancelled: number; cancelRequested: number };
export type RetryFlowResult = { result: 'retried' | 'not_found'; retried: number };
