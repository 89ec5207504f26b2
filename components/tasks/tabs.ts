// The Tasks page's tabs and filters as URL parameters (the same ones GET /api/tasks reads).
import type { TaskCountsJson, TaskJson } from '../api';

export const TABS = [
  'all',
  'waiting',
  'sleeping',
  'event',
  'ready',
  'scheduled',
  'retrying',
  'claimed',
  'running',
  'succeeded',
  'dead',
  'cancelled',
] as const;
export type Tab = (typeof TABS)[number];

/** The filter parameters besides the tab (status, sub), in the order they show. */
export const FILTER_KEYS = [
  'queue',
  'command',
  'key',
  'batch',
  'flow',
  'priorityMin',
  'priorityMax',
  'from',
  'to',
  'q',
  'payload',
] as const;
export type FilterKey = (typeof FILTER_KEYS)[number];
export type Filters = Record<FilterKey, string>;

export const TAB_LABEL: Record<Tab, string> = {
  all: 'All',
  waiting: 'Waiting',
  sleeping: 'Sleeping',
  event: 'Waiting for event',
  ready: 'Ready',
  scheduled: 'Scheduled',
  retrying: 'Retrying',
  claimed: 'Claimed',
  running: 'Running',
  succeeded: 'Succeeded',
  dead: 'Dead',
  cancelled: 'Cancelled',
};

export const TAB_HINT: Record<Tab, string> = {
  all: 'Every task in every state',
  waiting: 'Waiting for their parents to succeed (dependsOn, flows), or suspended by a durable handler: never claimed until then',
  sleeping: 'Of the waiting: suspended by a durable handler on ctx.sleep until its wake time (or an operator wakes it)',
  event: 'Of the waiting: suspended by a durable handler on ctx.waitForEvent until a matching event or its timeout',
  ready: 'Pending and due now: waiting for a free worker',
  scheduled: 'Pending with a run-at in the future, never tried yet',
  retrying: 'Pending after a failed attempt, waiting out the backoff',
  claimed: 'Claimed ahead by a pool, not started: the next free slot of that pool starts it (or it goes back to pending)',
  running: 'Started by a worker, running now',
  succeeded: 'Finished successfully',
  dead: 'Failed with no attempts left',
  cancelled: 'Cancelled before or while running',
};

const SUBS = new Set<Tab>(['ready', 'scheduled', 'retrying']);
/** kinds of waiting: suspended by a durable handler (status=waiting&sub=sleeping|event) */
const WAITING_SUBS = new Set<Tab>(['sleeping', 'event']);

/** The tab of `status` / `sub` URL parameters (status=pending without sub shows as all pending: null). */
export function tabOf(status: string | null, sub: string | null): Tab | null {
  if (sub && (SUBS.has(sub as Tab) || WAITING_SUBS.has(sub as Tab))) return sub as Tab;
  if (!status) return 'all';
  if (status === 'pending') return null;
  return (TABS as readonly string[]).includes(status) ? (status as Tab) : null;
}

/** The `status` / `sub` parameters of a tab. */
export function tabParams(tab: Tab): { status: string; sub: string } {
  if (tab === 'all') return { status: '', sub: '' };
  if (SUBS.has(tab)) return { status: 'pending', sub: tab };
  if (WAITING_SUBS.has(tab)) return { status: 'waiting', sub: tab };
  return { status: tab, sub: '' };
}

/** A tab's count from the kept aggregates. */
export function tabCount(tab: Tab, c: TaskCountsJson | undefined): number | null {
  if (!c) return null;
  return c[tab];
}

/** Whether the tab count is exactly what the filter matches (only the tab and the queue are set). */
export function countIsExact(filters: Filters): boolean {
  return FILTER_KEYS.every((k) => k === 'queue' || !filters[k]);
}

/**
 * Which kind of pending a task is now (as the store splits them), a waiting task a durable handler suspended
 * (`sleeping`, `waiting for event`), or its status.
 */
export function taskState(t: Pick<TaskJson, 'status' | 'runAfter' | 'attempts'> & { suspended?: string | null }, now: number): string {
  if (t.status === 'waiting' && t.suspended) return t.suspended === 'sleep' ? 'sleeping' : 'waiting for event';
  if (t.status !== 'pending') return t.status;
  const due = t.runAfter ? new Date(t.runAfter).getTime() : 0;
  if (due <= now) return 'ready';
  return t.attempts > 0 ? 'retrying' : 'scheduled';
}

/** `customer.id=42` → its parts; `customer.id~acme` contains. */
export function splitPayload(p: string): { path: string; op: 'eq' | 'contains'; value: string } {
  const at = p.search(/[=~]/);
  if (at < 0) return { path: p, op: 'eq', value: '' };
  return { path: p.slice(0, at), op: p[at] === '~' ? 'contains' : 'eq', value: p.slice(at + 1) };
}

export function joinPayload(path: string, op: 'eq' | 'contains', value: string): string {
  const p = path.trim();
  if (!p) return '';
  return `${p}${op === 'eq' ? '=' : '~'}${value}`;
}

/** A short one-line preview of a payload. */
export function payloadPreview(payload: unknown, max = 80): string {
  if (payload === null || payload === undefined) return '';
  let s: string;
  try {
    s = JSON.stringify(payload) ?? '';
  } catch {
    s = String(payload);
  }
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}
