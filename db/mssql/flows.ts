// Flows on SQL Server (lib/engine/types/flows.ts): created in one transaction — the Flows row and the nodes through the
// enqueue procedure (sql/flows.ts CREATE_FLOW, edges by ord) — on the shared pool, a caller's transaction (store.ts)
// or withTransaction's (transaction.ts); cancelled and retried as a whole; read with their nodes, edges and counts.
import type { CommandPort, ReadModel } from '../../lib/engine/ports';
import type {
  CancelFlowResult,
  FlowCounts,
  FlowDetail,
  FlowFilter,
  FlowInput,
  FlowResult,
  FlowSummary,
  Page,
  ParentFailurePolicy,
  RetryFlowResult,
  TaskKind,
  TaskStatus,
} from '../../lib/engine/types';
import { auditedCommand } from './audit';
import { query, sql, type IProcedureResult, type IResult, type Param, type Runner, type Shared } from './connection';
import { callEnqueue, enqueueRow } from './enqueue';
import type { ProcedureCatalog } from './procs';
import { id, token, type Id } from './rows';
import { settleTouched } from './settle';
import * as S from './sql/flows';
import { RETRY_FLOW } from './sql/operators';
import type { Slice } from '../shared/bind';

const first = <T>(r: IResult<unknown>): T | undefined => (r.recordsets as unknown as T[][])[0]?.[0];
const flowParam = (flowId: number): Param => ['flow_id', sql.BigInt, flowId];

/** Create a flow on `runner` (the shared pool, or a transaction): one statement, one transaction of its own or nested. */
export async function createFlowOn(shared: Shared, procs: ProcedureCatalog, input: FlowInput, runner?: Runner): Promise<FlowResult> {
  const ordOf = new Map(input.nodes.map((n, i) => [n.id, i]));
  const rows = input.nodes.map((n, i) =>
    enqueueRow(
      n.task,
      i,
      `nodes.${i}`,
      n.id,
      n.dependsOn.map((d, k) => ({ n: k, token: null, ord: ordOf.get(d.id)!, onParentFailure: d.onParentFailure })),
    ),
  );
  const tasks = input.nodes.map((n) => n.task);
  let flowId = 0;
  const results = await callEnqueue(
    shared,
    procs,
    tasks,
    rows,
    (i) => `nodes.${i}`,
    async (_name, params) => {
      const all: Param[] = [
        ...params,
        ['name', sql.NVarChar(200), input.name],
        ['caller', sql.NVarChar(200), input.caller ? input.caller.slice(0, 200) : null],
        ['node_count', sql.Int, input.nodes.length],
      ];
      const r = runner ? await query(runner, S.CREATE_FLOW, all) : await shared.write(S.CREATE_FLOW, all);
      const row = first<{ flow_id: Id; results: string | null }>(r)!;
      flowId = id(row.flow_id);
      return { ...r, output: { results: row.results } } as unknown as IProcedureResult<unknown>;
    },
  );
  const tokens: Record<string, string> = {};
  input.nodes.forEach((n, i) => {
    tokens[n.id] = results[i]!.token;
  });
  if (!runner) shared.wake();
  return { flowId, tokens };
}

export async function cancelFlow(shared: Shared, flowId: number): Promise<CancelFlowResult> {
  const r = await shared.write(S.CANCEL_FLOW, [flowParam(flowId)]);
  const row = first<{ found: number; cancelled: number; cancel_requested: number }>(r);
  await settleTouched(shared, r.recordsets);
  if (!row?.found) return { result: 'not_found', cancelled: 0, cancelRequested: 0 };
  // a child outside the flow under `run` may have become pending
  if (Number(row.cancelled) > 0) shared.wake();
  return { result: 'cancelled', cancelled: Number(row.cancelled), cancelRequested: Number(row.cancel_requested) };
}

export async function retryFlow(shared: Shared, flowId: number): Promise<RetryFlowResult> {
  const r = await shared.write(RETRY_FLOW, [flowParam(flowId)]);
  const row = first<{ retried: number; found: number }>(r);
  await settleTouched(shared, r.recordsets);
  if (!row?.found) return { result: 'not_found', retried: 0 };
  if (row.retried > 0) shared.wake();
  return { result: 'retried', retried: Number(row.retried) };
}

interface FlowRow {
  id: Id;
  name: string | null;
  caller: string | null;
  created_at: Date;
  node_count: number;
}
type CountRow = FlowRow & Record<TaskStatus, number> & { finished_at: Date | null };

const emptyCounts = (): FlowCounts => ({ waiting: 0, pending: 0, claimed: 0, running: 0, succeeded: 0, dead: 0, cancelled: 0 });
const open = (c: FlowCounts) => c.waiting + c.pending + c.claimed + c.running;

function summary(r: FlowRow, counts: FlowCounts, finishedAt: Date | null): FlowSummary {
  return {
    id: id(r.id),
    name: r.name,
    caller: r.caller,
    createdAt: r.created_at,
    finishedAt: open(counts) > 0 ? null : finishedAt,
    nodes: r.node_count,
    counts,
  };
}

export async function getFlow(shared: Shared, flowId: number): Promise<FlowDetail | null> {
  if (!Number.isSafeInteger(flowId)) return null;
  const r = await shared.query(S.GET_FLOW, [flowParam(flowId)]);
  const [flows, nodes, edges] = r.recordsets as unknown as [
    FlowRow[],
    {
      flow_node: string | null;
      token: string;
      status: TaskStatus;
      queue: string;
      kind: TaskKind;
      command: string;
      attempts: number;
      started_at: Date | null;
      finished_at: Date | null;
      error_message: string | null;
    }[],
    { parent: string; child: string; on_parent_failure: ParentFailurePolicy }[],
  ];
  const f = flows?.[0];
  if (!f) return null;
  const counts = emptyCounts();
  let finishedAt: Date | null = null;
  for (const n of nodes ?? []) {
    counts[n.status]++;
    if (n.finished_at && (!finishedAt || n.finished_at > finishedAt)) finishedAt = n.finished_at;
  }
  return {
    ...summary(f, counts, finishedAt),
    nodeList: (nodes ?? []).map((n) => ({
      nodeId: n.flow_node,
      token: token(n.token),
      status: n.status,
      queue: n.queue,
      kind: n.kind,
      command: n.command,
      attempts: n.attempts,
      startedAt: n.started_at,
      finishedAt: n.finished_at,
      error: n.error_message,
    })),
    edges: (edges ?? []).map((e) => ({ parent: token(e.parent), child: token(e.child), onParentFailure: e.on_parent_failure })),
  };
}

export async function listFlows(shared: Shared, filter: FlowFilter): Promise<Page<FlowSummary>> {
  const limit = Math.min(200, Math.max(1, Math.floor(filter.limit ?? 50)));
  const rows = (
    await shared.query<CountRow>(S.LIST_FLOWS, [
      ['limit', sql.Int, limit + 1],
      ['cursor', sql.BigInt, filter.cursor ?? null],
      ['unfinished', sql.Bit, filter.unfinished === undefined ? null : filter.unfinished ? 1 : 0],
    ])
  ).recordset;
  const items = rows.slice(0, limit).map((r) => {
    const counts = emptyCounts();
    for (const s of Object.keys(counts) as TaskStatus[]) counts[s] = Number(r[s] ?? 0);
    return summary(r, counts, r.finished_at);
  });
  return { items, nextCursor: rows.length > limit ? items[items.length - 1]!.id : null };
}

/** this module's part of the CommandPort and the ReadModel (store.ts binds createFlow, which needs the catalog) */
export const commandSlice = { cancelFlow: auditedCommand(cancelFlow, 1), retryFlow: auditedCommand(retryFlow, 1) } satisfies Slice<
  Shared,
  CommandPort
>;
export const readSlice = { getFlow, listFlows } satisfies Slice<Shared, ReadModel>;
