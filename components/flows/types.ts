// The JSON the flow pages read (GET /api/flows, GET /api/flows/{id}) and the colours of the task states in them.
import type { FlowJson, FlowSummaryJson } from '@/lib/api/flows';
import type { PageJson } from '../api';

export type { FlowJson, FlowSummaryJson };
export type FlowNodeJson = FlowJson['nodeList'][number];
export type FlowEdgeJson = FlowJson['edges'][number];
export type FlowPageJson = PageJson<FlowSummaryJson>;
export type FlowCountsJson = FlowSummaryJson['counts'];

/** The task states in the order a flow moves through them. */
export const FLOW_STATES = ['waiting', 'pending', 'running', 'succeeded', 'dead', 'cancelled'] as const;
export type FlowState = (typeof FLOW_STATES)[number];

/** Per state: a node's box, its bar segment and its minimap fill (palette variables: the dark theme remaps them). */
export const STATE_STYLE: Record<FlowState, { box: string; bar: string; fill: string }> = {
  waiting: { box: 'border-violet-300 bg-violet-50 text-violet-900', bar: 'bg-violet-300', fill: 'var(--color-violet-300)' },
  pending: { box: 'border-sky-300 bg-sky-50 text-sky-900', bar: 'bg-sky-400', fill: 'var(--color-sky-400)' },
  running: { box: 'border-amber-400 bg-amber-50 text-amber-900', bar: 'bg-amber-400', fill: 'var(--color-amber-400)' },
  succeeded: { box: 'border-emerald-400 bg-emerald-50 text-emerald-900', bar: 'bg-emerald-500', fill: 'var(--color-emerald-500)' },
  dead: { box: 'border-rose-400 bg-rose-50 text-rose-900', bar: 'bg-rose-500', fill: 'var(--color-rose-500)' },
  cancelled: { box: 'border-slate-300 bg-slate-100 text-slate-600', bar: 'bg-slate-400', fill: 'var(--color-slate-400)' },
};

/** Whether a flow still has a node to run (its finishedAt is null until the last one finished). */
export function isOpen(f: Pick<FlowSummaryJson, 'counts'>): boolean {
  return f.counts.waiting + f.counts.pending + f.counts.running > 0;
}

/** `1 node`, `3 nodes` */
export function counted(n: number, noun: string): string {
  return `${n.toLocaleString('en-US')} ${noun}${n === 1 ? '' : 's'}`;
}

/** A flow's overall state: running while a node is unfinished, then succeeded, failed (a dead node) or cancelled. */
export function flowState(f: Pick<FlowSummaryJson, 'counts'>): { label: string; tone: 'amber' | 'green' | 'red' | 'gray' | 'violet' } {
  const c = f.counts;
  if (c.running > 0) return { label: 'running', tone: 'amber' };
  if (c.waiting + c.pending > 0) return c.dead > 0 ? { label: 'stuck', tone: 'red' } : { label: 'open', tone: 'violet' };
  if (c.dead > 0) return { label: 'failed', tone: 'red' };
  if (c.cancelled > 0) return { label: 'cancelled', tone: 'gray' };
  return { label: 'succeeded', tone: 'green' };
}
