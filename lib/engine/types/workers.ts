// Worker processes: registration, heartbeats, what a worker view shows and which queues a worker serves.

export interface HeartbeatInput {
  /** every live worker of this process */
  workerIds: string[];
  /**
   * the attempts these workers are running, and the tasks they claimed ahead; their leases are renewed (fenced on
   * task, worker, attempt; a task claimed ahead — `claimer` set — also while it is still `claimed` by its claimer
   * with attempts = attempt − 1, its start not recorded yet)
   */
  running: { taskId: number; workerId: string; attempt: number; claimer?: string }[];
  leaseMs: number;
}

export interface HeartbeatResult {
  /** running tasks still owned by these workers (a task missing here lost its lease) */
  owned: number[];
  /** owned tasks an operator asked to cancel */
  cancelRequested: number[];
  /**
   * How long the database itself worked on the heartbeat (SQL Server: measured by the batch; SQLite: from
   * holding the write lock to done), when the store knows. The rest of its time was spent getting there:
   * waiting for a connection or the write lock, the network, compiling.
   */
  serverMs?: number;
}

export interface WorkerRegistration {
  workerId: string;
  host: string;
  pid: number;
  /** e.g. `web` for the dashboard's in-process pool, `cli` for `readpast worker` */
  role: string;
  /** the only queues it claims from (`--queues`); null or absent: every queue */
  queues?: readonly string[] | null;
}

export interface WorkerSession {
  session: number;
  loginTime: Date;
}

export type WorkerState = 'running' | 'stopping' | 'stopped' | 'lost';

export interface WorkerView {
  workerId: string;
  host: string;
  pid: number;
  role: string;
  session: number;
  loginTime: Date;
  startedAt: Date;
  heartbeatAt: Date;
  /** as recorded; a 'running' worker whose heartbeat is stale is reported as 'lost' */
  state: WorkerState;
  currentTask: { token: string; command: string; queue: string; startedAt: Date } | null;
  /** the only queues it claims from; null: every queue */
  queues: readonly string[] | null;
}

/** A worker's queues as the stores keep them: a JSON array of names, or null (none given: every queue). */
export const workerQueuesJson = (queues: readonly string[] | null | undefined): string | null =>
  queues?.length ? JSON.stringify(queues) : null;

/** A worker's recorded queues (workerQueuesJson's text), or null: every queue. */
export function workerQueuesOf(text: string | null | undefined): string[] | null {
  if (!text) return null;
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) && v.length && v.every((q) => typeof q === 'string') ? (v as string[]) : null;
  } catch {
    return null;
  }
}

/** Whether a worker that claims from `queues` (null: every queue) serves `queue`. */
export const servesQueue = (queues: readonly string[] | null, queue: string) => queues === null || queues.includes(queue);
