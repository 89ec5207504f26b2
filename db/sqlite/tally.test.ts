// The kept counts (tally.ts: QueueCounts per queue and status, BatchStages per stage) against a recount of
// Tasks, after every step of a seeded walk of workflow moves through the store's ports — dependencies and
// flows created, parents succeeding, dying, cancelled, retried, flows cancelled and retried, tasks deleted
// and rescued — so that no status transition (waiting ones included) leaves a count behind.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ClaimedTask, FlowInput, ParentFailurePolicy, Settlement } from '../../lib/engine/types';
import { PARENT_FAILURE_POLICIES } from '../../lib/engine/types';
import { prng } from '../contract/prng';
import { openDatabase, type Db } from './connection';
import { openSqliteStore, type SqliteStore } from './store';
import { Tally } from './tally';

const KEPT = 'SELECT queue, status, n FROM QueueCounts WHERE n <> 0 ORDER BY queue, status';
const RECOUNT = 'SELECT queue, status, COUNT(*) AS n FROM Tasks GROUP BY queue, status ORDER BY queue, status';
const KEPT_STAGES = `SELECT batch_id, stage, total, pending, running, succeeded, dead, cancelled FROM BatchStages
      WHERE total <> 0 ORDER BY batch_id, stage`;
const RECOUNT_STAGES = `SELECT batch_id, stage, COUNT(*) AS total, SUM(status = 'pending') AS pending,
      SUM(status = 'running') AS running, SUM(status = 'succeeded') AS succeeded, SUM(status = 'dead') AS dead,
      SUM(status = 'cancelled') AS cancelled FROM Tasks WHERE batch_id IS NOT NULL GROUP BY batch_id, stage ORDER BY batch_id, stage`;

describe('kept counts (tally)', () => {
  let dir: string;
  let store: SqliteStore;
  let db: Db;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'readpast-tally-'));
    store = await openSqliteStore(join(dir, 'tally.db'));
    db = openDatabase(join(dir, 'tally.db'));
  });
  afterEach(async () => {
    db.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a minute of created tasks only is added on its own; one that also started attempts gets its created tasks with the rest', () => {
    const minute = Date.UTC(2026, 0, 5, 10, 0);
    const t = new Tally();
    t.historyEnqueued(minute + 1_000, 'q', 'a.b', 2);
    t.historyEnqueued(minute + 61_000, 'q', 'a.b', 3);
    t.historyStarted(minute + 62_000, 'q', 'a.b', 40);
    t.historyEnqueued(minute + 63_000, 'q', 'a.b');
    db.transaction(() => t.flush(db))();
    const rows = () => db.prepare('SELECT t, enqueued, started, lat_sum FROM HistoryMinutes WHERE queue = ? ORDER BY t').all('q');
    expect(rows()).toEqual([
      { t: minute, enqueued: 2, started: 0, lat_sum: 0 },
      { t: minute + 60_000, enqueued: 4, started: 1, lat_sum: 40 },
    ]);
    // a later transaction adds to the same minutes
    const u = new Tally();
    u.historyEnqueued(minute + 2_000, 'q', 'a.b');
    db.transaction(() => u.flush(db))();
    expect(rows()[0]).toEqual({ t: minute, enqueued: 3, started: 0, lat_sum: 0 });
  });

  it('a waiting task is counted under its queue, moved and removed like any other status; stage counts leave it out', () => {
    const t = new Tally();
    t.task({ queue: 'q', batch_id: null, stage: null }, null, 'waiting');
    t.task({ queue: 'q', batch_id: null, stage: null }, null, 'waiting');
    t.task({ queue: 'q', batch_id: null, stage: null }, 'waiting', 'pending');
    t.task({ queue: 'r', batch_id: null, stage: null }, null, 'waiting');
    t.task({ queue: 'r', batch_id: null, stage: null }, 'waiting', 'cancelled');
    db.transaction(() => t.flush(db))();
    expect(db.prepare(KEPT).all()).toEqual([
      { queue: 'q', status: 'pending', n: 1 },
      { queue: 'q', status: 'waiting', n: 1 },
      { queue: 'r', status: 'cancelled', n: 1 },
    ]);
    const u = new Tally();
    u.task({ queue: 'q', batch_id: null, stage: null }, 'waiting', null);
    db.transaction(() => u.flush(db))();
    expect(db.prepare(KEPT).all()).toEqual([
      { queue: 'q', status: 'pending', n: 1 },
      { queue: 'r', status: 'cancelled', n: 1 },
    ]);
  });

  for (const seed of [1, 2, 3]) {
    it(`seed ${seed}: after every workflow move the kept counts equal a recount of Tasks`, async () => {
      const r = prng(seed);
      const tokens: string[] = [];
      const flows: number[] = [];
      const running = new Map<string, ClaimedTask>();
      const slot = {
        workerId: 'tally-w',
        session: (await store.worker.registerWorker({ workerId: 'tally-w', host: 'h', pid: 1, role: 't' })).session,
      };
      const batch = (await store.commands.createBatch({ maxParallel: null, onFailure: 'continue' })).id;
      const policy = (): ParentFailurePolicy => r.pick(PARENT_FAILURE_POLICIES);
      const moves: [string, () => Promise<unknown>][] = [
        [
          'enqueue',
          async () =>
            tokens.push((await store.commands.enqueue({ kind: 'handler', command: 'c', payload: null, queue: r.pick(['a', 'b']) })).token),
        ],
        [
          'enqueue in a batch',
          async () =>
            tokens.push((await store.commands.enqueue({ kind: 'handler', command: 'c', payload: null, batchId: batch, stage: 0 })).token),
        ],
        [
          'enqueue after others',
          async () => {
            if (!tokens.length) return;
            const parents = [...new Set([r.pick(tokens), r.pick(tokens)])].map((token) => ({ token, onParentFailure: policy() }));
            tokens.push(
              (
                await store.commands.enqueue({
                  kind: 'handler',
                  command: 'c',
                  payload: null,
                  queue: r.pick(['a', 'b']),
                  dependsOn: parents,
                })
              ).token,
            );
          },
        ],
        [
          'create a flow',
          async () => {
            const n = 2 + r.int(5);
            const nodes: FlowInput['nodes'] = [];
            for (let i = 0; i < n; i++) {
              const dependsOn = i === 0 ? [] : [...new Set([r.int(i), r.int(i)])].map((p) => ({ id: `n${p}`, onParentFailure: policy() }));
              nodes.push({ id: `n${i}`, task: { kind: 'handler', command: 'c', payload: null, queue: r.pick(['a', 'c']) }, dependsOn });
            }
            const f = await store.commands.createFlow({ name: null, caller: null, nodes });
            flows.push(f.flowId);
            tokens.push(...Object.values(f.tokens));
          },
        ],
        [
          'claim',
          async () => {
            for (const c of await store.worker.claim([slot], { leaseMs: r.pick([1, 60_000]) })) running.set(c.token, c);
          },
        ],
        [
          'settle',
          async () => {
            if (!running.size) return;
            const c = r.pick([...running.values()]);
            running.delete(c.token);
            const error = { number: null, message: 'x', detail: null };
            const settlement = r.pick<Settlement>([
              { kind: 'succeeded', result: { ok: 1 } },
              { kind: 'succeeded', result: null },
              { kind: 'dead', outcome: 'failed', error },
              { kind: 'cancelled', error: null },
              { kind: 'retry', outcome: 'failed', error, runAfter: new Date(Date.now() - 1000) },
            ]);
            await store.worker.finish([{ taskId: c.id, workerId: c.workerId, attempt: c.attempt, settlement }]);
          },
        ],
        ['cancel', async () => tokens.length && store.commands.cancel(r.pick(tokens))],
        ['retry', async () => tokens.length && store.commands.retry(r.pick(tokens))],
        [
          'delete',
          async () => {
            const i = r.int(tokens.length);
            if (tokens.length && (await store.commands.deleteTask(tokens[i]!)) === 'deleted') tokens.splice(i, 1);
          },
        ],
        ['cancel a flow', async () => flows.length && store.commands.cancelFlow(r.pick(flows))],
        ['retry a flow', async () => flows.length && store.commands.retryFlow(r.pick(flows))],
        ['bulk cancel', async () => tokens.length && store.commands.bulk('cancel', [r.pick(tokens), r.pick(tokens)], {})],
        ['bulk retry', async () => tokens.length && store.commands.bulk('retry', [r.pick(tokens), r.pick(tokens)], {})],
        ['rescue', async () => store.maintenance.rescueExpired()],
      ];
      const seen = new Set<string>();
      for (let step = 0; step < 300; step++) {
        const [name, move] = r.pick(moves);
        await move();
        const where = `seed ${seed}, step ${step} (${name})`;
        const recount = db.prepare(RECOUNT).all() as { status: string }[];
        expect(db.prepare(KEPT).all(), where).toEqual(recount);
        expect(db.prepare(KEPT_STAGES).all(), where).toEqual(db.prepare(RECOUNT_STAGES).all());
        for (const row of recount) seen.add(row.status);
      }
      // a walk that never had a task in some status proves nothing of its moves
      expect([...seen].sort()).toEqual(['cancelled', 'dead', 'pending', 'running', 'succeeded', 'waiting']);
    });
  }
});
