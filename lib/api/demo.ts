// A realistic demo workload over the built-in demo handlers: short and long sleeps on several
// queues, failures with SQL Server-like numbers and messages, flaky tasks that recover, delayed and
// prioritised tasks, a staged batch and a queue under a concurrency limit — enough for a newcomer to
// see every page of the dashboard come alive in seconds.
import { readModelOf, type Readpast } from './readpast';
import type { EnqueueRequest } from '../engine/validation';

export interface DemoOptions {
  /** random source in [0, 1); tests pass a fixed one */
  random?: () => number;
  now?: number;
  caller?: string;
}

const FAILURES: { queue: string; message: string; number: number; maxAttempts: number }[] = [
  { queue: 'emails', message: 'SMTP 550: mailbox unavailable for ops-alerts@example.com', number: 550, maxAttempts: 3 },
  { queue: 'emails', message: 'SMTP 421: service not available, closing transmission channel', number: 421, maxAttempts: 2 },
  {
    queue: 'etl',
    message: "Violation of PRIMARY KEY constraint 'PK_Orders'. Cannot insert duplicate key in object 'dbo.Orders'.",
    number: 2627,
    maxAttempts: 2,
  },
  {
    queue: 'etl',
    message:
      'Transaction (Process ID 57) was deadlocked on lock resources with another process and has been chosen as the deadlock victim.',
    number: 1205,
    maxAttempts: 3,
  },
  { queue: 'etl', message: 'Conversion failed when converting date and/or time from character string.', number: 241, maxAttempts: 2 },
  { queue: 'reports', message: 'Report template "quarterly-v2" not found', number: 50001, maxAttempts: 2 },
  { queue: 'default', message: 'Upstream API returned 503 Service Unavailable', number: 503, maxAttempts: 3 },
];

/** The demo requests, in enqueue order (~90 tasks). */
export function demoWorkload(opts: DemoOptions = {}): EnqueueRequest[] {
  const random = opts.random ?? Math.random;
  const now = opts.now ?? Date.now();
  const between = (lo: number, hi: number) => Math.round(lo + (hi - lo) * random());
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length) % xs.length]!;
  const out: EnqueueRequest[] = [];
  const sleep = (queue: string, ms: number, extra: Partial<EnqueueRequest> = {}) =>
    out.push({ command: 'demo.sleep', queue, payload: { ms }, ...extra });

  // default: mostly quick jobs, a few long ones
  for (let i = 0; i < 24; i++) sleep('default', random() < 0.8 ? between(200, 1500) : between(3000, 8000));
  // emails: many short sends, some urgent
  for (let i = 0; i < 20; i++) sleep('emails', between(200, 1200), { priority: i % 5 === 0 ? 10 : 0 });
  // reports: fewer, longer, some low priority
  for (let i = 0; i < 10; i++) sleep('reports', between(2000, 8000), { priority: i % 3 === 0 ? -5 : 0 });
  // etl: medium-length steps
  for (let i = 0; i < 12; i++) sleep('etl', between(800, 6000), { priority: pick([0, 0, 5]) });

  // progress and log lines: a bar on Running, a live tail on the task page
  for (let i = 0; i < 3; i++) out.push({ command: 'demo.progress', queue: 'etl', payload: { steps: 20 + i * 10, ms: between(300, 700) } });

  // results worth looking at in the task detail
  for (const [i, region] of ['emea', 'amer', 'apac'].entries()) {
    out.push({ command: 'demo.echo', queue: 'reports', payload: { report: 'daily-sales', region, rows: 1200 + i * 317 } });
  }

  // failures: each message twice, so Failed & poison shows groups
  for (const f of FAILURES) {
    for (let i = 0; i < 2; i++) {
      out.push({ command: 'demo.fail', queue: f.queue, payload: { message: f.message, number: f.number }, maxAttempts: f.maxAttempts });
    }
  }

  // flaky: most recover on a later attempt, one runs out of attempts
  for (let i = 0; i < 5; i++) {
    out.push({ command: 'demo.flaky', queue: pick(['default', 'emails', 'etl']), payload: { failTimes: 1 + (i % 2) }, maxAttempts: 3 });
  }
  out.push({ command: 'demo.flaky', queue: 'etl', payload: { failTimes: 3 }, maxAttempts: 2 });

  // delayed: due 10–60 s from now
  for (let i = 0; i < 6; i++) {
    sleep(pick(['default', 'reports', 'etl']), between(300, 3000), { runAt: new Date(now + (10 + i * 10) * 1000).toISOString() });
  }
  // mixed, so failures and retries show up in the first seconds rather than after every sleep
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1)) % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** The demo staged batch: stages of 4, 2, 1, 2 and 1 tasks, at most 3 running at once. */
export const DEMO_BATCH = { maxParallel: 3, stages: [4, 2, 1, 2, 1], queue: 'etl' } as const;

/** A queue of the demo workload that runs under a concurrency limit, so the Queues page shows a full gauge. */
export const DEMO_LIMIT = { queue: 'reports', concurrencyLimit: 2 } as const;

/** The requests of the demo batch's tasks (demo.sleep of 1–4 s), stage by stage. */
export function demoBatchTasks(batchId: number, opts: Pick<DemoOptions, 'random'> = {}): EnqueueRequest[] {
  const random = opts.random ?? Math.random;
  const out: EnqueueRequest[] = [];
  DEMO_BATCH.stages.forEach((size, stage) => {
    for (let i = 0; i < size; i++) {
      const ms = Math.round(1000 + 3000 * random());
      out.push({ command: 'demo.sleep', queue: DEMO_BATCH.queue, payload: { ms }, batchId, stage });
    }
  });
  return out;
}

/** Create the demo staged batch, fill it and release it; returns its id and how many tasks it holds. */
export async function createDemoBatch(readpast: Readpast, opts: DemoOptions = {}): Promise<{ id: number; count: number }> {
  const caller = opts.caller ?? 'demo';
  const batch = await readpast.createBatch({ maxParallel: DEMO_BATCH.maxParallel }, caller);
  const results = await readpast.enqueueMany(demoBatchTasks(batch.id, opts), { caller });
  await readpast.releaseBatch(batch.id);
  return { id: batch.id, count: results.length };
}

/**
 * Limit the demo's limited queue, unless its limit was ever set (by the demo loaded before, or by someone
 * who changed it since — raised, lowered or removed): a limit the user chose is never reset.
 */
export async function limitDemoQueue(readpast: Readpast): Promise<boolean> {
  const queue = (await readModelOf(readpast).listQueues()).find((q) => q.name === DEMO_LIMIT.queue);
  if (queue && queue.concurrencyLimit !== null) return false;
  // a queue that does not exist yet has no changes (asking for one answers NotFound)
  const changes = queue ? await readpast.queueChanges(DEMO_LIMIT.queue, 50) : [];
  if (changes.some((c) => c.field === 'concurrencyLimit')) return false;
  await readpast.setQueue(DEMO_LIMIT.queue, { concurrencyLimit: DEMO_LIMIT.concurrencyLimit }, 'demo');
  return true;
}

/**
 * Enqueue the demo workload, create a staged demo batch, and limit one demo queue unless its limit was
 * set before (limitDemoQueue); returns how many tasks were created.
 */
export async function loadDemoWorkload(readpast: Readpast, opts: DemoOptions = {}): Promise<number> {
  await limitDemoQueue(readpast);
  const results = await readpast.enqueueMany(demoWorkload(opts), { caller: opts.caller ?? 'demo' });
  const batch = await createDemoBatch(readpast, opts);
  return results.filter((r) => r.created).length + batch.count;
}
