// The JSON the dashboard reads from its own API routes, and the one fetch helper that reads it.
import type {
  attemptJson,
  claimedJson,
  DoctorJson,
  metricsJson,
  runningJson,
  statsJson,
  statusJson,
  taskJson,
  workerJson,
} from '@/lib/api/present';
import type { LiveRequestState } from '@/lib/engine/types';

export type StatsJson = ReturnType<typeof statsJson>;
export type QueueCountsJson = StatsJson['queues'][number];
export type TaskJson = ReturnType<typeof taskJson>;
export type StatusJson = ReturnType<typeof statusJson>;
export type AttemptJson = ReturnType<typeof attemptJson>;
export type WorkerJson = ReturnType<typeof workerJson>;
export type ClaimedJson = ReturnType<typeof claimedJson>[number];
export type { DoctorJson };
export type DoctorCheckJson = DoctorJson['checks'][number];
export type MetricPointJson = ReturnType<typeof metricsJson>[number];
export type RunningJson = Omit<ReturnType<typeof runningJson>, 'live'> & { live: LiveRequestState | null };

export interface PageJson<T> {
  items: T[];
  nextCursor: number | null;
}

export interface FailureGroupJson {
  message: string;
  queue: string;
  command: string;
  count: number;
  lastAt: string;
  sampleToken: string;
  /** failure fingerprint: error number + normalised message (lib/engine/fingerprint.ts) */
  fingerprint: string;
  errorNumber: number | null;
  firstAt: string;
  /** dead tasks per hour over the last 24 hours, oldest first */
  trend: number[];
}

export interface FailuresJson {
  groups: FailureGroupJson[];
  /** offset of the next page of groups (`cursor`), null at the end */
  nextCursor: number | null;
  dead: (TaskJson & { fingerprint: string | null })[];
}

/** Whether the server's request state (SQL Server DMVs) can be read, and why not; whether KILL may be used, and why not; null on SQLite. */
export type LiveStatusJson = { available: boolean; reason: string | null; canKill?: boolean; killRefusal?: string | null } | null;

export interface WorkersJson {
  workers: WorkerJson[];
  pool: {
    size: number;
    /** workers a shrink asked to leave, still finishing their task */
    retiring?: number;
    role: string;
    host: string;
    pid: number;
    /** where the start size comes from: READPAST_WORKERS, or the size stored by the last resize */
    source?: { from: 'env'; size: number } | { from: 'stored'; size: number; by: string; at: string };
  } | null;
  liveStatus: LiveStatusJson;
}

export interface RunningListJson {
  items: RunningJson[];
  /** tasks claimed ahead by a pool and not started, by claimer (not running: a section of their own) */
  claimed?: ClaimedJson[];
  liveStatus?: LiveStatusJson;
}

export interface MetricsJson {
  points: MetricPointJson[];
}

export interface HandlersJson {
  handlers: string[];
}

/** An error answer from the API (`{ error, field? }`) or the network. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

const SIGN_IN_AGAIN_KEY = 'readpast.signInAgain';

/**
 * The sign-on session has ended (the API answers 401 with `signIn`): reload the page, which sends the browser
 * to the provider and back here (silently while the provider's own session lasts). At most once a minute,
 * so a browser that refuses the session cookie sees the error instead of reloading forever.
 */
function signInAgain(): void {
  if (typeof window === 'undefined') return;
  try {
    const last = Number(window.sessionStorage.getItem(SIGN_IN_AGAIN_KEY) ?? 0);
    if (Date.now() - last < 60_000) return;
    window.sessionStorage.setItem(SIGN_IN_AGAIN_KEY, String(Date.now()));
  } catch {
    return;
  }
  window.location.reload();
}

export async function fetchJson<T>(url: string, signal?: AbortSignal): Promise<T> {
  let res: Response;
  try {
    res = await fetch(url, { signal, cache: 'no-store', headers: { accept: 'application/json' } });
  } catch (err) {
    if (signal?.aborted) throw err;
    throw new ApiError('the dashboard server cannot be reached', 0);
  }
  const text = await res.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  if (!res.ok) {
    const b = body as { error?: unknown; field?: unknown; signIn?: unknown } | null;
    if (res.status === 401 && typeof b?.signIn === 'string') signInAgain();
    const message = typeof b?.error === 'string' ? b.error : `${res.status} ${res.statusText || 'error'}`;
    throw new ApiError(message, res.status, typeof b?.field === 'string' ? b.field : undefined);
  }
  return body as T;
}

/** Build `path?k=v…`, leaving out empty values. */
export function withQuery(path: string, params: Record<string, string | number | null | undefined>): string {
  const sp = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') sp.set(k, String(v));
  const s = sp.toString();
  return s ? `${path}?${s}` : path;
}

/** GET /api/tasks: a page of tasks; `partial` when a filter no index answers stopped after `scanned` rows. */
export interface TaskPageJson extends PageJson<TaskJson> {
  partial?: boolean;
  scanned?: number | null;
}
export type { TaskCountsJson } from '@/lib/api/task-counts';
