// What the durable handlers' contract files share: running one attempt of a claimed task through the engine's own
// attempt runner (lib/engine/run.ts, so steps go through the real DurableRun), and a table of the test's own.
import { expect } from 'vitest';
import { HandlerRegistry, type Handler } from '../../lib/engine/handlers';
import type { Store } from '../../lib/engine/ports';
import { runTask } from '../../lib/engine/run';
import type { ClaimedTask, Settlement, WorkerSlot } from '../../lib/engine/types';
import { type Harness, LONG_LEASE, sleep } from './harness';

export function registry(handlers: Record<string, Handler>): HandlerRegistry {
  const r = new HandlerRegistry();
  for (const [name, fn] of Object.entries(handlers)) r.register(name, fn);
  return r;
}

export interface Ran {
  task: ClaimedTask;
  settlement: Settlement;
  /** the store took the settlement */
  accepted: boolean;
}

/** Run one attempt of `task` and settle it (unless `settle: false`: the worker "crashes" after running). */
export async function runClaimed(
  h: Harness,
  reg: HandlerRegistry,
  task: ClaimedTask,
  opts: { leaseMs?: number; settle?: boolean } = {},
): Promise<Ran> {
  const { settlement } = await runTask(h.store.worker, reg, task, new AbortController(), { leaseMs: opts.leaseMs ?? LONG_LEASE });
  const accepted = opts.settle === false ? false : await h.settle(task, settlement);
  return { task, settlement, accepted };
}

/** Claim one task (of `queue`) and run it. */
export async function runOne(h: Harness, reg: HandlerRegistry, slot: WorkerSlot, queue = 'default', leaseMs = LONG_LEASE): Promise<Ran> {
  const task = await h.claimOne(slot, { queues: [queue], leaseMs });
  return runClaimed(h, reg, task, { leaseMs });
}

/** Wait (polling the store) until `check` holds, or fail after `ms`. */
export async function until(what: string, check: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) expect.fail(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** Resume the suspended tasks whose time has come, until the task is no longer waiting. */
export async function wakeUntilPending(h: Harness, token: string): Promise<void> {
  await until(`task ${token} to wake`, async () => {
    await h.store.maintenance.wakeDue();
    return (await h.status(token)) === 'pending';
  });
}

const tableName = () => `rp_durable_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;

/** A table of the test's own (portable SQL), dropped after `body`. */
export async function withTable(store: Store, body: (name: string) => Promise<void>): Promise<void> {
  const name = tableName();
  await store.commands.transaction((tx) => tx.execute(`CREATE TABLE ${name} (k varchar(50) NOT NULL PRIMARY KEY, n int NULL)`));
  try {
    await body(name);
  } finally {
    await store.commands.transaction((tx) => tx.execute(`DROP TABLE ${name}`));
  }
}

export async function tableRows(store: Store, name: string): Promise<{ k: string; n: number | null }[]> {
  const r = await store.commands.transaction((tx) => tx.execute<{ k: string; n: number | null }>(`SELECT k, n FROM ${name} ORDER BY k`));
  return r.rows.map((x) => ({ k: x.k, n: x.n === null ? null : Number(x.n) }));
}
