// What the Running page shows of the list: filtered by queue and command, in chain order (blocked tasks
// under their blocker) or sorted by elapsed time; and whether the list is stale (the server stopped answering).
import type { RunningJson } from '../api';
import { POLL_MS } from '../live';

export type RunningSort = 'chain' | 'elapsed_desc' | 'elapsed_asc';

export interface RunningViewState {
  /** exact queue name; '' = every queue */
  queue: string;
  /** substring of the command, any case; '' = every command */
  command: string;
  sort: RunningSort;
}

/** rows matching the filters; sorted by elapsed when asked (longest first for `elapsed_desc`) */
export function applyView<T extends Pick<RunningJson, 'queue' | 'command' | 'startedAt' | 'attemptId'>>(
  rows: readonly T[],
  v: RunningViewState,
): T[] {
  const needle = v.command.trim().toLowerCase();
  const out = rows.filter((r) => (!v.queue || r.queue === v.queue) && (!needle || r.command.toLowerCase().includes(needle)));
  if (v.sort === 'chain') return out;
  const dir = v.sort === 'elapsed_desc' ? 1 : -1;
  // elapsed = now - startedAt: the longest-running started first
  return out.sort((a, b) => dir * (Date.parse(a.startedAt ?? '') - Date.parse(b.startedAt ?? '')) || a.attemptId - b.attemptId);
}

/** the polls missed before rows count as stale */
export const STALE_AFTER_MS = 2.5 * POLL_MS;

/** stale: the last poll failed, or the last good answer is older than about two polls */
export function isStale(lastPollFailed: boolean, updatedAt: number, now: number): boolean {
  return lastPollFailed || now - updatedAt > STALE_AFTER_MS;
}
