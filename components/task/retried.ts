'use client';
// What this tab retried, and when. A dead task that is retried and fails again at once looks unchanged (its
// badge still says dead), so the rows and the task page say what the new attempt did (retriedNote), derived
// from the task's own attempts and finish time against the server's clock at the retry. A mark lasts until
// the next action on that task (kept in sessionStorage: it survives moving between pages).
import { useSyncExternalStore } from 'react';
import { formatDuration } from '../format';

export interface RetryMark {
  /** the server's clock when the retry was asked (ISO) */
  at: string;
  /** the attempts the task had made before it */
  attempts: number;
}

type Marks = Record<string, RetryMark>;

const KEY = 'readpast.retried';
const MAX_MARKS = 500;
const listeners = new Set<() => void>();
let marks: Marks | null = null;

function load(): Marks {
  if (marks) return marks;
  marks = {};
  try {
    const raw = window.sessionStorage.getItem(KEY);
    const parsed: unknown = raw ? JSON.parse(raw) : null;
    if (parsed && typeof parsed === 'object') marks = parsed as Marks;
  } catch {
    // no storage (a private window, a quota): marks live in memory only
  }
  return marks;
}

function save(next: Marks) {
  const tokens = Object.keys(next);
  for (const t of tokens.slice(0, Math.max(0, tokens.length - MAX_MARKS))) delete next[t];
  marks = next;
  try {
    window.sessionStorage.setItem(KEY, JSON.stringify(next));
  } catch {
    // see load()
  }
  for (const l of listeners) l();
}

/** Remember that these tasks were retried at `at` (the server's clock), each with the attempts it had made. */
export function markRetried(tasks: readonly { token: string; attempts: number }[], at: string) {
  const next = { ...load() };
  for (const t of tasks) {
    delete next[t.token];
    next[t.token] = { at, attempts: t.attempts };
  }
  save(next);
}

/** Another action on the task: its retry note ends. */
export function clearRetried(token: string) {
  const m = load();
  if (!(token in m)) return;
  const next = { ...m };
  delete next[token];
  save(next);
}

function subscribe(fn: () => void) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

export function useRetryMark(token: string): RetryMark | undefined {
  return useSyncExternalStore(
    subscribe,
    () => load()[token],
    () => undefined,
  );
}

export interface RetriedTask {
  status: string;
  attempts: number;
  maxAttempts: number;
  finishedAt: string | null;
}

/**
 * What happened since the retry, from the task as read now: `retried · failed again 0.4 s later, attempt 3/3`.
 * Null while the read predates the retry (the task still shows the attempts it had).
 */
export function retriedNote(t: RetriedTask, mark: RetryMark | undefined): string | null {
  if (!mark) return null;
  const of = `attempt ${t.attempts}/${t.maxAttempts}`;
  if (t.attempts <= mark.attempts) return t.status === 'pending' ? `retried · attempt ${mark.attempts + 1} waits for a worker` : null;
  const after = () => {
    const ms = t.finishedAt ? Date.parse(t.finishedAt) - Date.parse(mark.at) : Number.NaN;
    if (!Number.isFinite(ms)) return 'since';
    // the finish is stamped by the store's clock, the retry by the dashboard's: never a negative delay
    return ms > 0 ? `${formatDuration(ms)} later` : 'at once';
  };
  switch (t.status) {
    case 'dead':
      return `retried · failed again ${after()}, ${of}`;
    case 'succeeded':
      return `retried · succeeded ${after()}, ${of}`;
    case 'cancelled':
      return `retried · cancelled ${after()}, ${of}`;
    case 'running':
      return `retried · ${of} running`;
    default:
      // pending again: the new attempt failed and waits out its backoff
      return `retried · ${of} failed, retrying`;
  }
}
