// Commands on flows (lib/engine/types/flows.ts): create one — a Flows row, its tasks in topological order (roots
// pending, the rest waiting) and its edges, each a multi-row INSERT —, cancel its unfinished nodes, retry its
// failed ones. The graph steps they share with single tasks are in edges.ts.
import type { AuditWrite, CommandPort } from '../../lib/engine/ports';
import type { CancelFlowResult, FlowInput, FlowResult, RetryFlowResult } from '../../lib/engine/types';
import { runSteps, type Steps } from './big-write';
import type { Db, Shared } from './connection';
import { parentsFailed, retryTask } from './edges';
import { Enqueued, taskRow } from './enqueue';
import { insertRows } from './insert-rows';
import type { QueueDefaults } from './queues';
import { EDGE_COLUMNS, insertEdges } from './sql/edges';
import { INSERT_CHUNKS, insertLinkedTasks, LINKED_TASK_COLUMNS } from './sql/enqueue';
import * as S from './sql/flow-commands';
import { cancelNow } from './operators';
import { RETRY_ONE_CANDIDATE } from './sql/operators';
import { stmt } from './stmt';
import type { Slice } from '../shared/bind';
import type { Tally, TaskKey } from './tally';

type Row = TaskKey & { id: number; status: string };

/**
 * Rows written per round while creating a flow: one multi-row INSERT's worth (INSERT_CHUNKS[0]), so the values are
 * bound as gathered — a larger buffer is copied again, a statement's slice at a time (about 15% of rp.flow's CPU
 * time for 10,000 nodes).
 */
const FLUSH_ROWS = INSERT_CHUNKS[0];

/** One transaction, written in slices when the flow is big (big-write.ts). */
export async function createFlow(shared: Shared, input: FlowInput, audit?: AuditWrite<FlowResult>): Promise<FlowResult> {
  const r = await shared.write(input.nodes.length, (db, tally, now) => createFlowSteps(db, input, tally, now), audit);
  shared.wake();
  return r;
}

/** A flow written on `db` at once, inside a write transaction of the caller's (withTransaction's). */
export function createFlowIn(db: Db, input: FlowInput, tally: Tally, now: number): FlowResult {
  return runSteps(createFlowSteps(db, input, tally, now));
}

/** A flow written on `db`, inside a write transaction; it may pause after each multi-row INSERT. */
function* createFlowSteps(db: Db, input: FlowInput, tally: Tally, now: number): Steps<FlowResult> {
  const flowId = Number(stmt(db, S.INSERT_FLOW).run(input.name, input.caller, now, input.nodes.length).lastInsertRowid);
  const cache = new Map<string, QueueDefaults>();
  const counts = new Enqueued();
  const tokens: Record<string, string> = {};
  /** the nodes' task ids, in input order */
  const ids: number[] = [];
  // written as it goes (a chunk of rows at a time), so that no array holds the whole flow's values
  let params: unknown[] = [];
  const flushTasks = () => {
    for (const id of insertRows(db, params, insertLinkedTasks, LINKED_TASK_COLUMNS)) ids.push(id);
    params = [];
  };
  for (const n of input.nodes) {
    const parents = n.dependsOn.length;
    const status = parents ? 'waiting' : 'pending';
    // a node takes no dedup key (validateFlow): always a new row
    const row = taskRow(db, n.task, tally, now, cache, counts, status) as { token: string; params: unknown[] };
    tokens[n.id] = row.token;
    for (const v of row.params) params.push(v);
    params.push(status, flowId, n.id, parents, parents);
    if (params.length >= FLUSH_ROWS * LINKED_TASK_COLUMNS) {
      flushTasks();
      yield;
    }
  }
  flushTasks();
  const idOf = new Map<string, number>();
  let edges: unknown[] = [];
  for (let i = 0; i < input.nodes.length; i++) {
    const n = input.nodes[i]!;
    const id = ids[i]!;
    idOf.set(n.id, id);
    for (const d of n.dependsOn) edges.push(idOf.get(d.id)!, id, d.onParentFailure, 0);
    if (edges.length >= FLUSH_ROWS * EDGE_COLUMNS) {
      insertRows(db, edges, insertEdges, EDGE_COLUMNS);
      edges = [];
      yield;
    }
  }
  insertRows(db, edges, insertEdges, EDGE_COLUMNS);
  counts.apply(tally, now);
  return { flowId, tokens };
}

/** Waiting, pending and claimed nodes → cancelled (their children's policies applied), running ones asked to stop. */
export async function cancelFlow(shared: Shared, flowId: number, audit?: AuditWrite<CancelFlowResult>): Promise<CancelFlowResult> {
  let ready = false;
  const r = await shared.tx((tally, now): CancelFlowResult => {
    const db = shared.db;
    if (!stmt(db, S.FLOW_EXISTS).get(flowId)) return { result: 'not_found', cancelled: 0, cancelRequested: 0 };
    const rows = stmt(db, S.FLOW_CANCELLABLE).all(flowId) as Row[];
    for (const t of rows) cancelNow(db, t, tally, now);
    // all cancelled first, so that none counts as cancelled by a parent (blocked_by stays NULL: retryFlow retries
    // them); then the policies of children outside the flow
    ready = parentsFailed(
      db,
      rows.map((t) => t.id),
      tally,
      now,
    );
    const cancelRequested = stmt(db, S.FLOW_REQUEST_CANCEL).run(flowId).changes;
    return { result: 'cancelled', cancelled: rows.length, cancelRequested };
  }, audit);
  if (ready) shared.wake();
  return r;
}

/** Retry each dead node and each cancelled one no parent cancelled (the others come back with their parent). */
export async function retryFlow(shared: Shared, flowId: number, audit?: AuditWrite<RetryFlowResult>): Promise<RetryFlowResult> {
  const r = await shared.tx((tally, now): RetryFlowResult => {
    const db = shared.db;
    if (!stmt(db, S.FLOW_EXISTS).get(flowId)) return { result: 'not_found', retried: 0 };
    let retried = 0;
    for (const t of stmt(db, S.FLOW_RETRYABLE).all(flowId) as Row[]) {
      // its dedup key free (a task added to the flow with dependsOn may have one)
      if (!stmt(db, RETRY_ONE_CANDIDATE).get(t.id)) continue;
      retryTask(db, t, t.status, tally, now);
      retried++;
    }
    return { result: 'retried', retried };
  }, audit);
  if (r.retried) shared.wake();
  return r;
}

/** this module's part of the CommandPort (store.ts binds it to the store's Shared) */
export const commandSlice = { cancelFlow, retryFlow } satisfies Slice<Shared, CommandPort>;
