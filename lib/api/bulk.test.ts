// Bulk actions and edit-before-retry through the front door, against a real SQLite file: a filter walked
// and applied in chunks, the confirmed count checked, one audit row per action, edits validated as enqueue.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConflictError, ValidationError } from '../engine/errors';
import { openStore } from './open';
import { Readpast, readModelOf } from './readpast';

let dir: string;
let rp: Readpast;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'readpast-bulk-'));
  rp = new Readpast(await openStore(`sqlite:${join(dir, 'db.sqlite')}`));
});

afterEach(async () => {
  await rp.close();
  rmSync(dir, { recursive: true, force: true });
});

const rejects = async (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('accepted');
    },
    (e: unknown) => e,
  );

const cancelled = async (queue: string, n: number) => {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const { token } = await rp.enqueue({ command: 'demo.echo', queue, runAt: new Date(Date.now() + 3_600_000).toISOString() });
    await rp.cancel(token);
    out.push(token);
  }
  return out;
};

describe('bulk actions through lib/api', () => {
  it('previews and retries everything a filter matches, with one audit row; refuses more than confirmed', async () => {
    const tokens = await cancelled('bq', 3);
    await rp.enqueue({ command: 'demo.echo', queue: 'bq', runAt: new Date(Date.now() + 3_600_000).toISOString() });
    expect(await rp.bulkPreview({ action: 'retry', filter: 'queue=bq' })).toEqual({ action: 'retry', count: 3, matched: 4 });
    expect(await rejects(rp.bulk({ action: 'retry', filter: 'queue=bq', expected: 2 }))).toBeInstanceOf(ConflictError);
    const r = await rp.bulk({ action: 'retry', filter: 'queue=bq', expected: 3 });
    expect(r).toMatchObject({ action: 'retry', done: 3, skipped: 0, missing: 0, expected: 3, count: 3 });
    for (const t of tokens) expect((await rp.status(t)).status).toBe('pending');
    const audit = await readModelOf(rp).listAudit({ action: 'tasks.bulk_retry', limit: 10 });
    expect(audit.items).toHaveLength(1);
    expect(audit.items[0]).toMatchObject({ target: 'filter:queue=bq', count: 3, before: { filter: 'queue=bq', expected: 3 } });

    // run now on a selection: the scheduled ones become due, the retried ones (due already) are left
    const later = (await rp.enqueue({ command: 'demo.echo', queue: 'bq', runAt: new Date(Date.now() + 3_600_000).toISOString() })).token;
    const now = await rp.bulk({ action: 'run_now', tokens: [later, ...tokens] });
    expect(now).toMatchObject({ done: 1, count: 1 });
    expect(Date.parse((await rp.status(later)).runAfter!)).toBeLessThanOrEqual(Date.now());
    expect((await readModelOf(rp).listAudit({ action: 'tasks.bulk_run_now', limit: 10 })).items[0]).toMatchObject({
      target: 'tokens:4',
      count: 1,
    });
  });

  it('names the bad field', async () => {
    const e1 = await rejects(rp.bulk({ action: 'explode', tokens: ['x'] }));
    expect(e1).toBeInstanceOf(ValidationError);
    const e2 = await rejects(rp.bulk({ action: 'priority', filter: 'queue=a' }));
    expect((e2 as ValidationError).field).toBe('priority');
    const e3 = await rejects(rp.bulkPreview({ action: 'retry', filter: 'status=bogus' }));
    expect((e3 as ValidationError).field).toBe('status');
  });
});

/** dead tasks of demo.fail (one attempt each), one after the other (a dedup key is free again once its task is dead) */
const dead = async (queue: string, payloads: { message: string; dedupKey?: string }[]) => {
  const pool = rp.createPool({ concurrency: 2, heartbeatMs: 50, pollMs: 20 });
  await pool.start();
  const tokens: string[] = [];
  for (const { message, dedupKey } of payloads) {
    const { token } = await rp.enqueue({ command: 'demo.fail', queue, payload: { message }, maxAttempts: 1, dedupKey });
    while ((await rp.status(token)).status !== 'dead') await new Promise((r) => setTimeout(r, 20));
    tokens.push(token);
  }
  await pool.stop(0);
  return tokens;
};

describe('the one bulk command on a failure selection', () => {
  it('retries (the newest per dedup key, the rest counted) and deletes, audited as failures.*', async () => {
    const [older, newer, other] = await dead('fq', [
      { message: 'boom', dedupKey: 'k' },
      { message: 'boom', dedupKey: 'k' },
      { message: 'other' },
    ]);
    const r = await rp.bulk({ action: 'retry', failures: { queue: 'fq', message: 'boom' } });
    expect(r).toEqual({ action: 'retry', done: 1, skipped: 1, missing: 0, dedupKeyHeld: 1, expected: null, count: 2 });
    expect((await rp.status(newer!)).status).toBe('pending');
    expect((await rp.status(older!)).status).toBe('dead');
    const retried = (await readModelOf(rp).listAudit({ action: 'failures.retry', limit: 10 })).items;
    expect(retried).toHaveLength(1);
    expect(retried[0]).toMatchObject({
      target: 'filter:{"queue":"fq","message":"boom"}',
      count: 1,
      after: { skipped: { dedupKeyHeld: 1 } },
    });

    expect(await rp.bulk({ action: 'delete', failures: { queue: 'fq', message: 'other' } })).toMatchObject({ done: 1, count: 1 });
    await expect(rp.status(other!)).rejects.toThrow(/no task/);
    expect((await readModelOf(rp).listAudit({ action: 'failures.delete', limit: 10 })).items[0]).toMatchObject({ count: 1 });
  });

  it('refuses what a failure selection cannot do, naming the field; retryFailed names the filter fields', async () => {
    const field = async (p: Promise<unknown>) => ((await rejects(p)) as ValidationError).field;
    expect(await field(rp.bulk({ action: 'cancel', failures: {} }))).toBe('action');
    expect(await field(rp.bulk({ action: 'retry', failures: {}, tokens: ['00000000-0000-4000-8000-000000000001'] }))).toBe('failures');
    expect(await field(rp.bulk({ action: 'retry', failures: {}, expected: 3 }))).toBe('expected');
    expect(await field(rp.bulk({ action: 'retry', failures: { colour: 'red' } }))).toBe('failures.colour');
    expect(await field(rp.bulkPreview({ action: 'retry', failures: {} }))).toBe('failures');
    expect(await field(rp.retryFailed({ queue: 'q', colour: 'red' }))).toBe('colour');
    expect(await field(rp.deleteFailed({ queue: 'bad name!' }))).toBe('queue');
    expect(await field(rp.retryFailed(null))).toBe('body');
  });

  it('a selection of tokens takes the same dedup-key rule', async () => {
    const [older, newer] = await dead('fk', [
      { message: 'x', dedupKey: 'same' },
      { message: 'x', dedupKey: 'same' },
    ]);
    const r = await rp.bulk({ action: 'retry', tokens: [older, newer] });
    expect(r).toMatchObject({ done: 1, skipped: 1, dedupKeyHeld: 1, count: 2 });
    expect((await rp.status(newer!)).status).toBe('pending');
  });
});

describe('edit before retry through lib/api', () => {
  it('saves and retries a cancelled task, recording before and after; validates as enqueue', async () => {
    const [token] = await cancelled('eq', 1);
    expect(((await rejects(rp.editTask(token!, { priority: 5000 }))) as ValidationError).field).toBe('priority');
    expect(((await rejects(rp.editTask(token!, { queue: 'bad name!' }))) as ValidationError).field).toBe('queue');
    const r = await rp.editTask(token!, { payload: { fixed: 1 }, queue: 'eq2', priority: 4, retry: true });
    expect(r.result).toBe('retried');
    expect(r.task).toMatchObject({ status: 'pending', queue: 'eq2', priority: 4, payload: { fixed: 1 } });
    const audit = (await readModelOf(rp).listAudit({ action: 'task.edit', limit: 10 })).items[0];
    expect(audit).toMatchObject({
      target: token,
      before: { queue: 'eq', priority: 0, status: 'cancelled', payload: null },
      after: { queue: 'eq2', priority: 4, status: 'pending', payload: { fixed: 1 } },
    });
  });
});
