// Flows on the front door: create one (rp.flow, POST /api/flows), read one or the list, cancel its unfinished
// nodes, retry its failed ones. Validation is lib/engine/flows.ts; the rules the stores apply, types/flows.ts.
import { z } from 'zod';
import { NotFoundError, ValidationError } from '../engine/errors';
import { validateFlow } from '../engine/flows';
import { parseWith } from '../engine/validation';
import type { FlowDetail, FlowFilter, FlowResult, FlowSummary, Page } from '../engine/types';
import { currentActor } from './audit';
import type { Core, EnqueueOptions } from './core';
import { sendFlow } from './trace-enqueue';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function flowSummaryJson(f: FlowSummary) {
  return { ...f, createdAt: iso(f.createdAt), finishedAt: iso(f.finishedAt) };
}

export function flowJson(f: FlowDetail) {
  return {
    ...flowSummaryJson(f),
    edges: f.edges,
    nodeList: f.nodeList.map((n) => ({ ...n, startedAt: iso(n.startedAt), finishedAt: iso(n.finishedAt) })),
  };
}

export type FlowJson = ReturnType<typeof flowJson>;
export type FlowSummaryJson = ReturnType<typeof flowSummaryJson>;

/** a flow id (a positive integer, or its digits); ValidationError `flowId` otherwise */
export function checkFlowId(id: unknown): number {
  const n = typeof id === 'string' && /^\d{1,15}$/.test(id) ? Number(id) : id;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 1)
    throw new ValidationError('flowId', 'not a flow id (a positive whole number)');
  return n;
}

export const FLOW_PAGE_DEFAULT = 50;
export const FLOW_PAGE_MAX = 200;

const flowFilter = z.strictObject({
  unfinished: z.boolean().optional(),
  cursor: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional(),
  limit: z.number().int().min(1).max(FLOW_PAGE_MAX).optional(),
});

/** a flow list filter as given (rp.flows, GET /api/flows): checked, limit defaulted; ValidationError naming the field */
export function checkFlowFilter(raw: unknown): FlowFilter {
  const r = parseWith(flowFilter, raw ?? {});
  const f: FlowFilter = { limit: r.limit ?? FLOW_PAGE_DEFAULT };
  if (r.unfinished !== undefined) f.unfinished = r.unfinished;
  if (r.cursor !== undefined) f.cursor = r.cursor;
  return f;
}

export class Flows {
  constructor(private readonly core: Core) {}

  /** validate and create a whole flow in one transaction: its id and the tokens by node id */
  async create(raw: unknown, opts: EnqueueOptions = {}): Promise<FlowResult> {
    const input = await validateFlow(raw, await this.core.context(opts));
    const written =
      currentActor().source === 'library'
        ? undefined
        : this.core.audit.of((r: FlowResult) => ({
            action: 'flow.create',
            target: String(r.flowId),
            after: { name: input.name, nodes: input.nodes.length },
            count: input.nodes.length,
          }));
    return sendFlow(input, opts, (traced) => this.core.store.commands.createFlow(traced, { transaction: opts.transaction }, written));
  }

  async get(id: unknown): Promise<FlowJson> {
    const n = checkFlowId(id);
    const f = await this.core.store.reads.getFlow(n);
    if (!f) throw new NotFoundError(`no flow ${n}`);
    return flowJson(f);
  }

  /** flows newest first, keyset on id: `{ unfinished?, cursor?, limit? }` (limit 1–200, default 50) */
  async list(filter: FlowFilter | Record<string, unknown> = {}): Promise<Page<FlowSummaryJson>> {
    const page = await this.core.store.reads.listFlows(checkFlowFilter(filter));
    return { ...page, items: page.items.map(flowSummaryJson) };
  }

  /** cancel every unfinished node (running ones are asked to stop) */
  async cancel(id: unknown): Promise<{ cancelled: number; cancelRequested: number }> {
    const n = checkFlowId(id);
    const written = this.core.audit.of((r: { result: string; cancelled: number; cancelRequested: number }) =>
      r.result === 'cancelled' && r.cancelled + r.cancelRequested > 0
        ? {
            action: 'flow.cancel',
            target: String(n),
            after: { cancelled: r.cancelled, cancelRequested: r.cancelRequested },
            count: r.cancelled,
          }
        : null,
    );
    const r = await this.core.store.commands.cancelFlow(n, written);
    if (r.result === 'not_found') throw new NotFoundError(`no flow ${n}`);
    return { cancelled: r.cancelled, cancelRequested: r.cancelRequested };
  }

  /** retry the flow's dead nodes and those cancelled other than by a parent (their children are re-armed) */
  async retryFailed(id: unknown): Promise<{ retried: number }> {
    const n = checkFlowId(id);
    const written = this.core.audit.of((r: { result: string; retried: number }) =>
      r.result === 'retried' && r.retried > 0 ? { action: 'flow.retry', target: String(n), count: r.retried } : null,
    );
    const r = await this.core.store.commands.retryFlow(n, written);
    if (r.result === 'not_found') throw new NotFoundError(`no flow ${n}`);
    return { retried: r.retried };
  }
}
