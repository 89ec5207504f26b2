// The workflow reads of the SQLite store: a task's parents and children (getTask in reads.ts adds them), a
// flow with its nodes and edges, and the list of flows — counts aggregated from Tasks by Tasks_flow.
import type { ReadModel } from '../../lib/engine/ports';
import type { FlowDetail, FlowFilter, FlowSummary, Page, TaskDetail } from '../../lib/engine/types';
import { MAX_LINKS_SHOWN } from '../../lib/engine/limits';
import { read, type Db, type Shared } from './connection';
import {
  flowEdge,
  flowNode,
  flowSummary,
  taskLink,
  type FlowCountRow,
  type FlowEdgeRow,
  type FlowNodeRow,
  type FlowRow,
  type LinkRow,
} from './rows';
import * as S from './sql/flow-reads';
import { stmt } from './stmt';
import type { Slice } from '../shared/bind';

const FLOWS_DEFAULT = 50;
const FLOWS_MAX = 200;

/** A task's parents and children (each up to MAX_LINKS_SHOWN, by id) and how many children it has. */
export function taskLinks(db: Db, id: number, parentCount: number): Pick<TaskDetail, 'parents' | 'children' | 'childCount'> {
  const parents = parentCount > 0 ? (stmt(db, S.TASK_PARENTS).all(id, MAX_LINKS_SHOWN) as LinkRow[]).map(taskLink) : [];
  const rows = stmt(db, S.TASK_CHILDREN).all(id, MAX_LINKS_SHOWN + 1) as LinkRow[];
  const childCount = rows.length > MAX_LINKS_SHOWN ? (stmt(db, S.CHILD_COUNT).get(id) as { n: number }).n : rows.length;
  return { parents, children: rows.slice(0, MAX_LINKS_SHOWN).map(taskLink), childCount };
}

/** The counts by status of some flows' tasks, by flow id. */
function countsOf(db: Db, ids: readonly number[]): Map<number, FlowCountRow[]> {
  const out = new Map<number, FlowCountRow[]>();
  if (!ids.length) return out;
  for (const r of stmt(db, S.FLOW_COUNTS).all(JSON.stringify(ids)) as FlowCountRow[]) {
    const rows = out.get(r.flow_id) ?? [];
    rows.push(r);
    out.set(r.flow_id, rows);
  }
  return out;
}

/** A flow with every task of it (by id) and every edge into one of them; one snapshot. */
export function getFlow(shared: Shared, id: number): Promise<FlowDetail | null> {
  return read(() =>
    shared.db.transaction(() => {
      const row = stmt(shared.db, S.GET_FLOW).get(id) as FlowRow | undefined;
      if (!row) return null;
      const nodes = stmt(shared.db, S.FLOW_NODES).all(id) as FlowNodeRow[];
      const edges = stmt(shared.db, S.FLOW_EDGES).all(id) as FlowEdgeRow[];
      const counts = new Map<string, FlowCountRow>();
      for (const n of nodes) {
        const c = counts.get(n.status) ?? { flow_id: id, status: n.status, n: 0, finished_at: null };
        c.n++;
        if (n.finished_at !== null && (c.finished_at === null || n.finished_at > c.finished_at)) c.finished_at = n.finished_at;
        counts.set(n.status, c);
      }
      return { ...flowSummary(row, [...counts.values()]), nodeList: nodes.map(flowNode), edges: edges.map(flowEdge) };
    })(),
  );
}

/** Flows newest first, keyset-paged on id, with their tasks' counts by status; one snapshot. */
export function listFlows(shared: Shared, f: FlowFilter): Promise<Page<FlowSummary>> {
  return read(() =>
    shared.db.transaction(() => {
      const limit = Math.min(FLOWS_MAX, Math.max(1, Math.floor(f.limit ?? FLOWS_DEFAULT)));
      const filters: string[] = [];
      const params: unknown[] = [];
      if (f.unfinished !== undefined) filters.push(f.unfinished ? S.FLOW_FILTER.unfinished : S.FLOW_FILTER.finished);
      if (f.cursor !== undefined) {
        filters.push(S.FLOW_FILTER.cursor);
        params.push(f.cursor);
      }
      const rows = stmt(shared.db, S.listFlowsSql(filters)).all(...params, limit + 1) as FlowRow[];
      const page = rows.slice(0, limit);
      const counts = countsOf(
        shared.db,
        page.map((r) => r.id),
      );
      const items = page.map((r) => flowSummary(r, counts.get(r.id) ?? []));
      return { items, nextCursor: rows.length > limit ? items[items.length - 1]!.id : null };
    })(),
  );
}

/** this module's part of the ReadModel (store.ts binds it to the store's Shared) */
export const readSlice = { getFlow, listFlows } satisfies Slice<Shared, ReadModel>;
