// `readpast batch …` and `readpast enqueue --batch/--stage` as users run them: real child processes
// over a temporary SQLite file. Stages run in order (checked from attempt times), `batch wait`
// returns once its stage is done, times out with exit 5, and unknown batches and conflicts map to
// exits 3 and 4; `--on-failure abort` cancels the later stages.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BatchJson, taskJson } from '../../lib/api/present';
import { cli, cliOk, ISO_MS, limited, statusOf, tempDb, UUID, WorkerProcess, type RunOptions, type TempDb } from './helpers';
import { intervalOf, maxOverlap } from './overlap';

type TaskJson = ReturnType<typeof taskJson>;
interface WaitJson {
  done: boolean;
  batch: BatchJson;
  tasks: TaskJson[];
}

const createBatch = async (args: string[], opts: RunOptions): Promise<number> => {
  const out = await cliOk(['batch', 'create', ...args], opts);
  expect(out).toMatch(/^[1-9]\d*\n$/);
  return Number(out.trim());
};

const enqueue = async (opts: RunOptions, args: string[]): Promise<string> => {
  const token = (await cliOk(['enqueue', ...args], opts)).trim();
  expect(token).toMatch(UUID);
  return token;
};

const batchStatus = async (id: number, opts: RunOptions): Promise<BatchJson> =>
  JSON.parse(await cliOk(['batch', 'status', String(id), '--json'], opts)) as BatchJson;

const ms = (iso: string | null | undefined) => Date.parse(iso!);

describe('readpast batch without a worker', () => {
  let db: TempDb;
  beforeAll(() => {
    db = tempDb();
  });
  afterAll(() => db.cleanup());

  it('create prints an integer id; enqueue --batch/--stage fills the stages; status shows them', async () => {
    const id = await createBatch(['--max-parallel', '3', '--on-failure', 'abort'], db);
    const s0 = await enqueue(db, ['--handler', 'demo.echo', '--batch', String(id)]);
    const s1 = await enqueue(db, ['--handler', 'demo.echo', '--batch', String(id), '--stage', '1']);
    await enqueue(db, ['--handler', 'demo.echo', '--batch', String(id), '--stage', '1']);
    expect(await statusOf(s0, db)).toMatchObject({ batchId: id, stage: 0, status: 'pending' });
    expect(await statusOf(s1, db)).toMatchObject({ batchId: id, stage: 1 });

    const b = await batchStatus(id, db);
    expect(b).toMatchObject({
      id,
      status: 'open',
      activeStage: 0,
      maxParallel: 3,
      onFailure: 'abort',
      releasedAt: null,
      completedAt: null,
    });
    expect(b.createdAt).toMatch(ISO_MS);
    expect(b.totals).toEqual({ total: 3, pending: 3, running: 0, succeeded: 0, dead: 0, cancelled: 0 });
    expect(b.stages.map((s) => [s.stage, s.total, s.pending])).toEqual([
      [0, 1, 1],
      [1, 2, 2],
    ]);

    const human = await cliOk(['batch', 'status', String(id)], db);
    expect(human).toMatch(/^status:\s+open$/m);
    expect(human).toMatch(/^active stage:\s+0$/m);
    expect(human).toMatch(/^0\*\s+1\s+1\s+0\s+0\s+0\s+0\s/m);
    expect(human).toMatch(/^1\s+2\s+2\s+0\s+0\s+0\s+0\s/m);

    // a batch with defaults
    const plain = await createBatch([], db);
    expect(plain).toBeGreaterThan(id);
    expect(await batchStatus(plain, db)).toMatchObject({ maxParallel: null, onFailure: 'continue', status: 'open', stages: [] });
  });

  it('batch wait with a short timeout on a batch nobody runs exits 5 and prints the current state', async () => {
    const id = await createBatch([], db);
    await enqueue(db, ['--handler', 'demo.echo', '--batch', String(id)]);
    const started = Date.now();
    const [human, json] = await Promise.all([
      cli(['batch', 'wait', String(id), '--stage', '0', '--timeout-s', '1'], db),
      cli(['batch', 'wait', String(id), '--timeout-s', '1', '--json'], db),
    ]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(human.code, human.stderr).toBe(5);
    expect(human.stdout).toMatch(/^status:\s+open$/m);
    expect(human.stdout).toMatch(/^tasks:\s+1 \(1 pending/m);
    expect(human.stderr).toBe(`readpast batch wait: stage 0 of batch ${id} not finished after 1 s (exit 5)\n`);
    expect(json.code, json.stderr).toBe(5);
    const w = JSON.parse(json.stdout) as WaitJson;
    expect(w).toMatchObject({ done: false, tasks: [], batch: { id, status: 'open', totals: { pending: 1 } } });
  });

  it('an unknown batch is exit 3 for every batch command and for enqueue --batch', async () => {
    const results = await limited(
      [
        ['batch', 'status', '99999'],
        ['batch', 'wait', '99999', '--timeout-s', '1'],
        ['batch', 'release', '99999'],
        ['batch', 'cancel', '99999'],
        ['enqueue', '--handler', 'demo.echo', '--batch', '99999'],
      ],
      3,
      (args) => cli(args, db),
    );
    for (const r of results) {
      expect(r.code, r.stderr).toBe(3);
      expect(r.stdout).toBe('');
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/^readpast (batch \w+|enqueue): .*no batch 99999\n$/);
    }
  });

  it('release twice is exit 4, so is adding to a released batch; cancel cancels its tasks, then 4', async () => {
    const id = await createBatch([], db);
    const token = await enqueue(db, ['--handler', 'demo.echo', '--batch', String(id)]);
    expect(await cliOk(['batch', 'release', String(id)], db)).toMatch(new RegExp(`^released batch ${id}\\b`));
    expect((await batchStatus(id, db)).status).toBe('released');
    const again = await cli(['batch', 'release', String(id)], db);
    expect(again.code, again.stderr).toBe(4);
    expect(again.stderr).toBe(`readpast batch release: batch ${id} is not open\n`);
    const late = await cli(['enqueue', '--handler', 'demo.echo', '--batch', String(id)], db);
    expect(late.code, late.stderr).toBe(4);
    expect(late.stdout).toBe('');
    expect(late.stderr.trimEnd().split('\n')).toHaveLength(1);

    expect(await cliOk(['batch', 'cancel', String(id)], db)).toBe(`cancelled batch ${id}: 1 task(s) cancelled\n`);
    expect((await statusOf(token, db)).status).toBe('cancelled');
    expect((await batchStatus(id, db)).status).toBe('cancelled');
    const twice = await cli(['batch', 'cancel', String(id)], db);
    expect(twice.code, twice.stderr).toBe(4);
    // a cancelled batch is finished: waiting on it returns at once
    const w = JSON.parse(await cliOk(['batch', 'wait', String(id), '--json'], db)) as WaitJson;
    expect(w.done).toBe(true);
    expect(w.tasks.map((t) => [t.token, t.status])).toEqual([[token, 'cancelled']]);
  });
});

describe('readpast batch with a worker', () => {
  let db: TempDb;
  let worker: WorkerProcess | undefined;
  beforeAll(() => {
    db = tempDb();
  });
  afterAll(async () => {
    worker?.kill();
    await worker?.exited;
    db.cleanup();
  });

  const startWorker = async () => {
    worker ??= new WorkerProcess(['--concurrency', '4'], db);
    await worker.started();
    return worker;
  };

  it('wait --stage 0 returns once stage 0 is done, before any stage-1 start; release then wait completes', async () => {
    const id = await createBatch(['--max-parallel', '2'], db);
    const stage0 = await limited([0, 1, 2], 3, () =>
      enqueue(db, ['--handler', 'demo.sleep', '--payload', '{"ms":1000}', '--batch', String(id), '--stage', '0']),
    );
    const stage1 = await limited([0, 1], 2, () =>
      enqueue(db, ['--handler', 'demo.sleep', '--payload', '{"ms":300}', '--batch', String(id), '--stage', '1']),
    );

    // the wait starts before any worker exists: it has to block until the work is done
    const waiting = cli(['batch', 'wait', String(id), '--stage', '0', '--timeout-s', '120', '--json'], { ...db, timeoutMs: 150_000 });
    const w = await startWorker();
    const r = await waiting;
    const returnedAt = Date.now();
    expect(r.code, `${r.stderr}\n${w.recentLog()}`).toBe(0);
    const waited = JSON.parse(r.stdout) as WaitJson;
    expect(waited.done).toBe(true);
    expect(waited.tasks.map((t) => t.token).sort()).toEqual([...stage0].sort());
    expect(waited.tasks.every((t) => t.stage === 0 && t.status === 'succeeded')).toBe(true);
    const s0 = waited.batch.stages.find((s) => s.stage === 0)!;
    expect(s0).toMatchObject({ total: 3, succeeded: 3, pending: 0, running: 0 });
    expect(returnedAt).toBeGreaterThanOrEqual(ms(s0.lastEndedAt));
    // what the wait saw of stage 1: nothing of it had started before stage 0's last end
    const s1Seen = waited.batch.stages.find((s) => s.stage === 1)!;
    if (s1Seen.firstStartedAt !== null) expect(ms(s1Seen.firstStartedAt)).toBeGreaterThanOrEqual(ms(s0.lastEndedAt));

    // release, then wait for the whole batch: completed, every task succeeded
    expect(await cliOk(['batch', 'release', String(id)], db)).toMatch(new RegExp(`^released batch ${id}\\b`));
    const all = await cli(['batch', 'wait', String(id), '--timeout-s', '120', '--json'], { ...db, timeoutMs: 150_000 });
    expect(all.code, all.stderr).toBe(0);
    const done = JSON.parse(all.stdout) as WaitJson;
    expect(done.done).toBe(true);
    expect(done.batch.status).toBe('completed');
    expect(done.batch.completedAt).toMatch(ISO_MS);
    expect(done.tasks).toHaveLength(5);
    expect(done.tasks.every((t) => t.status === 'succeeded')).toBe(true);

    // the order, from batch status --json and from every task's attempt history
    const b = await batchStatus(id, db);
    expect(b).toMatchObject({ status: 'completed', activeStage: null, totals: { total: 5, succeeded: 5 } });
    const [first, second] = b.stages;
    expect(ms(second!.firstStartedAt)).toBeGreaterThanOrEqual(ms(first!.lastEndedAt));
    const history = async (tokens: string[]) => (await limited(tokens, 3, (t) => statusOf(t, db))).flatMap((s) => s.history);
    const h0 = await history(stage0);
    const h1 = await history(stage1);
    expect(h0).toHaveLength(3);
    expect(h1).toHaveLength(2);
    const lastEnd0 = Math.max(...h0.map((a) => ms(a.endedAt)));
    expect(Math.min(...h1.map((a) => ms(a.startedAt)))).toBeGreaterThanOrEqual(lastEnd0);
    expect(lastEnd0).toBe(ms(first!.lastEndedAt));
    // the cap of 2 held, and the three one-second tasks of stage 0 used it
    expect(maxOverlap([...h0, ...h1].map(intervalOf))).toBe(2);

    // the human form of a finished wait lists each task with its result
    const human = await cliOk(['batch', 'wait', String(id), '--stage', '1'], db);
    expect(human).toMatch(new RegExp(`^batch ${id} stage 1: done — 2 task\\(s\\): 2 succeeded, 0 dead, 0 cancelled$`, 'm'));
    for (const t of stage1) expect(human).toMatch(new RegExp(`^${t}\\s+1\\s+succeeded\\s+1/5\\s+demo\\.sleep\\s+\\{"slept":300\\}$`, 'm'));
  }, 180_000);

  it('--on-failure abort: a dead task of stage 0 cancels the later stages', async () => {
    // the worker may already run: hold the batch's queue until every stage is filled
    await cliOk(['queue', 'set', 'staged', '--pause'], db);
    await startWorker();
    const id = await createBatch(['--on-failure', 'abort'], db);
    const b = String(id);
    const q = ['--queue', 'staged', '--batch', b];
    const failing = await enqueue(db, [
      '--handler',
      'demo.fail',
      '--payload',
      '{"message":"boom","number":50000}',
      '--max-attempts',
      '1',
      ...q,
    ]);
    const ok = await enqueue(db, ['--handler', 'demo.echo', '--payload', '"fine"', ...q]);
    const later = await limited([1, 1, 2], 3, (stage) => enqueue(db, ['--handler', 'demo.echo', ...q, '--stage', String(stage)]));
    await cliOk(['batch', 'release', b], db);
    expect((await batchStatus(id, db)).totals).toMatchObject({ total: 5, pending: 5 });
    await cliOk(['queue', 'set', 'staged', '--resume'], db);

    const r = await cli(['batch', 'wait', b, '--timeout-s', '120', '--json'], { ...db, timeoutMs: 150_000 });
    expect(r.code, r.stderr).toBe(0);
    const waited = JSON.parse(r.stdout) as WaitJson;
    expect(waited.done).toBe(true);
    expect(waited.batch.status).toBe('aborted');
    const byToken = new Map(waited.tasks.map((t) => [t.token, t]));
    expect(byToken.get(failing)).toMatchObject({ status: 'dead', stage: 0, lastError: { message: 'boom', number: 50000 } });
    expect(byToken.get(ok)).toMatchObject({ status: 'succeeded', result: 'fine' });
    for (const t of later) {
      expect(byToken.get(t)).toMatchObject({ status: 'cancelled', attempts: 0, startedAt: null });
      expect((await statusOf(t, db)).history).toEqual([]);
    }
    const human = await cliOk(['batch', 'status', b], db);
    expect(human).toMatch(/^status:\s+aborted$/m);
    expect(human).toMatch(/^tasks:\s+5 \(0 pending, 0 running, 1 succeeded, 1 dead, 3 cancelled\)$/m);
  }, 180_000);
});
