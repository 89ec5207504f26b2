// Workers' lives: registration (a stable per-worker session number: SQLite has no SPID), a clean stop,
// the handler names a process can run, and heartbeats that renew the leases of running tasks — only
// leases the attempt still owns (fenced on task, worker and attempt).
import {
  workerQueuesJson,
  type HeartbeatInput,
  type HeartbeatResult,
  type WorkerRegistration,
  type WorkerSession,
} from '../../lib/engine/types';
import type { Shared } from './connection';
import * as S from './sql/workers';
import { stmt } from './stmt';
import type { WorkerPort } from '../../lib/engine/ports';
import type { Slice } from '../shared/bind';

export function registerWorker(shared: Shared, reg: WorkerRegistration): Promise<WorkerSession> {
  return shared.tx((_t, now) => {
    const queues = workerQueuesJson(reg.queues);
    const row = stmt(shared.db, S.REGISTER_WORKER).get(reg.workerId, reg.host, reg.pid, reg.role, queues, now, now, now) as {
      session: number;
      login_time: number;
    };
    return { session: row.session, loginTime: new Date(row.login_time) };
  });
}

/** the worker stopped cleanly (state `stopped`) */
export async function deregisterWorker(shared: Shared, workerId: string): Promise<void> {
  await shared.tx((_t, now) => {
    stmt(shared.db, S.DEREGISTER_WORKER).run(now, now, workerId);
  });
}

export async function registerHandlers(shared: Shared, names: string[]): Promise<void> {
  await shared.tx((_t, now) => {
    for (const n of names) stmt(shared.db, S.REGISTER_HANDLER).run(n, now);
  });
}

/** renew worker heartbeats and the leases of their running tasks (only leases not yet expired: invariant 7) */
export async function heartbeat(shared: Shared, input: HeartbeatInput): Promise<HeartbeatResult> {
  let locked = 0;
  const r = await shared.tx((_t, now) => {
    locked = Date.now();
    const beat = stmt(shared.db, S.BEAT);
    for (const w of input.workerIds) beat.run(now, w);
    const renew = stmt(shared.db, S.RENEW_LEASE);
    const owned: number[] = [];
    const cancelRequested: number[] = [];
    for (const r of input.running) {
      const row = renew.get({
        lease: now + input.leaseMs,
        id: r.taskId,
        worker: r.workerId,
        attempt: r.attempt,
        claimer: r.claimer ?? null,
        now,
      }) as { cancel_requested: number } | undefined;
      if (!row) continue;
      owned.push(r.taskId);
      if (row.cancel_requested === 1) cancelRequested.push(r.taskId);
    }
    return { owned, cancelRequested };
  });
  // the write lock held until here (the commit included): the rest was the wait for it
  return { ...r, serverMs: Date.now() - locked };
}

/** this module's part of the WorkerPort (store.ts binds it to the store's Shared: db/shared/bind.ts) */
export const workerSlice = { registerWorker, deregisterWorker, registerHandlers, heartbeat } satisfies Slice<Shared, WorkerPort>;
