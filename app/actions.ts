'use server';
// Server actions for the dashboard's mutations. Each checks access, hands its arguments as they came to
// lib/api (which validates every command) and reports failures as a result value — nothing is thrown to
// the client.
import { createDemoBatch as createDemo, loadDemoWorkload as enqueueDemo } from '@/lib/api/demo';
import { ValidationError } from '@/lib/engine/errors';
import { getEngine, resizePool } from '@/lib/server/engine';
import { runAction, type ActionResult } from '@/lib/server/actions';
import type { QueueJson } from '@/lib/api/readpast';
import type { ScheduleDetailJson } from '@/lib/api/present';
import { changedBy } from '@/lib/server/queues';

export type { ActionResult };

const run = runAction;

export async function enqueueTask(input: unknown): Promise<ActionResult<{ token: string }>> {
  return run(async () => {
    const { readpast, config } = await getEngine();
    const r = await readpast.enqueue(input, { caller: 'dashboard', allowSql: config.allowSql });
    return { token: r.token };
  });
}

/** The server's clock as a retry starts: the dashboard tells how long after it the new attempt ended. */
const retryClock = () => new Date().toISOString();

export async function retryTask(token: string): Promise<ActionResult<{ at: string }>> {
  return run(async () => {
    const { readpast } = await getEngine();
    const at = retryClock();
    await readpast.retry(token);
    return { at };
  });
}

export async function cancelTask(token: string): Promise<ActionResult<{ status: string }>> {
  return run(async () => {
    const { readpast } = await getEngine();
    return { status: await readpast.cancel(token) };
  });
}

export async function deleteTask(token: string): Promise<ActionResult> {
  return run(async () => {
    const { readpast } = await getEngine();
    await readpast.deleteTask(token);
    return {};
  });
}

/**
 * Retry the selected tasks through the one bulk command: those dead or cancelled come back (of several sharing a
 * dedup key, the newest), the others are skipped; one `tasks.bulk_retry` audit row.
 */
export async function retryTasks(tokens: string[]): Promise<ActionResult<{ count: number; at: string }>> {
  return run(async () => {
    const { readpast } = await getEngine();
    const at = retryClock();
    return { count: (await readpast.bulk({ action: 'retry', tokens })).done, at };
  });
}

export async function setPoolSize(workers: number): Promise<ActionResult<{ size: number; retiring: number }>> {
  return run(async () => {
    const info = await resizePool(await getEngine(), workers);
    return { size: info.size, retiring: info.retiring };
  });
}

export async function loadDemoWorkload(): Promise<ActionResult<{ count: number }>> {
  return run(async () => {
    const { readpast } = await getEngine();
    return { count: await enqueueDemo(readpast, { caller: 'dashboard' }) };
  });
}

// ---- queues: concurrency limits, pause, throttle -------------------------------------------------------

/** Change a queue's concurrency limit live (null = unlimited); recorded as made by the signed-in user or `dashboard`. */
export async function setQueueLimit(name: string, concurrencyLimit: number | null): Promise<ActionResult<{ queue: QueueJson }>> {
  return run(async () => {
    const { readpast, config } = await getEngine();
    return { queue: await readpast.setQueue(name, { concurrencyLimit }, changedBy(config, 'dashboard')) };
  });
}

/** Pause (no new claims) or resume a queue; recorded like a limit change. */
export async function setQueuePaused(name: string, paused: boolean): Promise<ActionResult<{ queue: QueueJson }>> {
  return run(async () => {
    const { readpast, config } = await getEngine();
    return { queue: await readpast.setQueue(name, { paused }, changedBy(config, 'dashboard')) };
  });
}

/** A change of a queue's throttle, as the Queues page sends it: the rate as typed (`60/1m`, `20/2s per key`, `none`). */
export interface QueueThrottleChange {
  perKeyLimit?: number | null;
  keyFrom?: string | null;
  rateLimit?: string | null;
}

/** Change a queue's per-key limit, keyFrom path and/or rate limit live (null clears one); recorded like a limit change. */
export async function setQueueThrottle(name: string, change: QueueThrottleChange): Promise<ActionResult<{ queue: QueueJson }>> {
  return run(async () => {
    const { readpast, config } = await getEngine();
    const { perKeyLimit, keyFrom, rateLimit } = change ?? {};
    return { queue: await readpast.setQueue(name, { perKeyLimit, keyFrom, rateLimit }, changedBy(config, 'dashboard')) };
  });
}

// ---- batches ------------------------------------------------------------------------------------

/** A released demo batch: stages of 4, 2, 1, 2 and 1 demo.sleep tasks of 1–4 s, at most 3 at once. */
export async function createDemoBatch(): Promise<ActionResult<{ id: number }>> {
  return run(async () => {
    const { readpast } = await getEngine();
    const { id } = await createDemo(readpast, { caller: 'dashboard' });
    return { id };
  });
}

/** The batch actions' argument is `id`: a batch id the front door refuses is named as their caller knows it. */
async function asIdField<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ValidationError && err.field === 'batchId') throw new ValidationError('id', err.message.replace(/^batchId: /, ''));
    throw err;
  }
}

/** No more tasks: the batch completes once all of its tasks are terminal. */
export async function releaseBatch(id: number): Promise<ActionResult<{ status: string }>> {
  return run(async () => {
    const { readpast } = await getEngine();
    return { status: (await asIdField(() => readpast.releaseBatch(id))).status };
  });
}

/** Cancel the batch's pending tasks and ask its running ones to stop. */
export async function cancelBatch(id: number): Promise<ActionResult<{ cancelled: number }>> {
  return run(async () => {
    const { readpast } = await getEngine();
    return { cancelled: (await asIdField(() => readpast.cancelBatch(id))).cancelled };
  });
}

// ---- SQL Server: KILL the session of a running sql / procedure task -----------------------------

/** KILL <spid> of the session running the task (needs ALTER ANY CONNECTION); the attempt is recorded as cancelled. */
export async function killTask(token: string): Promise<ActionResult<{ status: string }>> {
  return run(async () => {
    const { readpast } = await getEngine();
    return readpast.killSession(token);
  });
}

// ---- schedules ----------------------------------------------------------------------------------

/** Create (name null) or change a schedule; field errors name the field (`cron`, `timezone`, `command` …). */
export async function saveSchedule(name: string | null, input: unknown): Promise<ActionResult<{ schedule: ScheduleDetailJson }>> {
  return run(async () => {
    const { readpast, config } = await getEngine();
    const by = changedBy(config, 'dashboard');
    const schedule =
      name === null
        ? await readpast.createSchedule(input, by, { allowSql: config.allowSql })
        : await readpast.updateSchedule(name, input, by, { allowSql: config.allowSql });
    return { schedule };
  });
}

/** Pause (false) or resume (true) a schedule; also one declared in code. */
export async function setScheduleEnabled(name: string, enabled: boolean): Promise<ActionResult<{ schedule: ScheduleDetailJson }>> {
  return run(async () => {
    const { readpast, config } = await getEngine();
    return { schedule: await readpast.setScheduleEnabled(name, enabled, changedBy(config, 'dashboard')) };
  });
}

/** Fire a schedule once now, outside its cron: one task marked manual. */
export async function runScheduleNow(name: string): Promise<ActionResult<{ token: string }>> {
  return run(async () => {
    const { readpast, config } = await getEngine();
    return { token: (await readpast.runSchedule(name, changedBy(config, 'dashboard'))).token };
  });
}

/** Delete a schedule (the tasks it fired stay); refused for one declared in code. */
export async function deleteSchedule(name: string): Promise<ActionResult> {
  return run(async () => {
    const { readpast } = await getEngine();
    await readpast.deleteSchedule(name);
    return {};
  });
}

/** A sleeping task, or one waiting for an event, resumes now (audited `task.wake`). */
export async function wakeTask(token: string): Promise<ActionResult<{ status: string }>> {
  return run(async () => {
    const { readpast } = await getEngine();
    return { status: await readpast.wake(token) };
  });
}

/**
 * Send an event: `payload` is the JSON text typed in the form (a bad one is a 400-like failure naming `payload`);
 * every task waiting for `name` whose match it contains resumes (audited `event.send`).
 */
export async function sendEvent(name: string, payload: string): Promise<ActionResult<{ id: number; resumed: number; tokens: string[] }>> {
  return run(async () => {
    let value: unknown = null;
    if (payload.trim() !== '') {
      try {
        value = JSON.parse(payload);
      } catch (err) {
        throw new ValidationError('payload', `not JSON (${(err as Error).message})`);
      }
    }
    const { readpast } = await getEngine();
    return readpast.sendEvent(name, value);
  });
}
