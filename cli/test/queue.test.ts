// `readpast queue set | list | tokens` as users run them: real child processes over a temporary
// SQLite file. A limit set from the command line is listed with its recorded change; pause stops
// claims of that queue only and resume lets them go; a granted token names its task and worker.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { queueChangeJson, queueJson, tokenJson } from '../../lib/api/present';
import { cli, cliOk, ISO_MS, limited, statusOf, tempDb, UUID, waitFor, WorkerProcess, type TempDb } from './helpers';

type QueueJson = ReturnType<typeof queueJson>;
type ChangeJson = ReturnType<typeof queueChangeJson>;
type TokenJson = ReturnType<typeof tokenJson>;
interface ListJson {
  queues: QueueJson[];
  changes: ChangeJson[];
}

describe('readpast queue without a worker', () => {
  let db: TempDb;
  beforeAll(() => {
    db = tempDb();
  });
  afterAll(() => db.cleanup());

  const list = async (): Promise<ListJson> => JSON.parse(await cliOk(['queue', 'list', '--json'], db)) as ListJson;

  it('queue set changes a limit; queue list --json shows it and the change, made by cli:$USER', async () => {
    const env = { ...db.env, USER: 'tester' };
    const line = await cliOk(['queue', 'set', 'reports', '--limit', '3'], { env });
    expect(line).toBe('queue reports: limit 3, running 0, pending 0, granted 0\n');

    const json = JSON.parse(await cliOk(['queue', 'set', 'reports', '--limit', '2', '--json'], { env })) as QueueJson;
    expect(json).toMatchObject({ name: 'reports', concurrencyLimit: 2, paused: false, running: 0, pending: 0, granted: 0 });

    const { queues, changes } = await list();
    expect(queues.find((q) => q.name === 'reports')).toMatchObject({
      concurrencyLimit: 2,
      paused: false,
      running: 0,
      pending: 0,
      granted: 0,
    });
    const mine = changes.filter((c) => c.queue === 'reports');
    expect(mine.map((c) => [c.field, c.oldValue, c.newValue, c.changedBy])).toEqual([
      ['concurrencyLimit', '3', '2', 'cli:tester'],
      ['concurrencyLimit', 'unlimited', '3', 'cli:tester'],
    ]);
    for (const c of mine) expect(c.at).toMatch(ISO_MS);

    // without USER the change is recorded as plain `cli`; --unlimited lifts the limit
    const noUser = { ...db.env };
    delete noUser.USER;
    expect(await cliOk(['queue', 'set', 'reports', '--unlimited'], { env: noUser })).toBe(
      'queue reports: limit unlimited, running 0, pending 0, granted 0\n',
    );
    const after = await list();
    expect(after.queues.find((q) => q.name === 'reports')?.concurrencyLimit).toBeNull();
    expect(after.changes[0]).toMatchObject({
      queue: 'reports',
      field: 'concurrencyLimit',
      oldValue: '2',
      newValue: 'unlimited',
      changedBy: 'cli',
    });

    // the human form: the queue's row and the change history
    const human = await cliOk(['queue', 'list'], db);
    expect(human).toMatch(/^QUEUE\s+LIMIT\s+PAUSED\s+RUNNING\s+PENDING\s+GRANTED$/m);
    expect(human).toMatch(/^reports\s+unlimited\s+no\s+0\s+0\s+0$/m);
    expect(human).toMatch(/reports\s+cli:tester\s+limit unlimited → 3/);
  });

  it('pause and resume are recorded; a limit and a pause can be set at once', async () => {
    expect(await cliOk(['queue', 'set', 'mail', '--limit', '5', '--pause'], db)).toBe(
      'queue mail: limit 5, paused, running 0, pending 0, granted 0\n',
    );
    let q = (await list()).queues.find((x) => x.name === 'mail');
    expect(q).toMatchObject({ concurrencyLimit: 5, paused: true });
    expect(await cliOk(['queue', 'set', 'mail', '--resume'], db)).toBe('queue mail: limit 5, running 0, pending 0, granted 0\n');
    const { queues, changes } = await list();
    q = queues.find((x) => x.name === 'mail');
    expect(q).toMatchObject({ concurrencyLimit: 5, paused: false });
    expect(changes.filter((c) => c.queue === 'mail').map((c) => `${c.field} ${c.oldValue}->${c.newValue}`)).toEqual([
      'paused true->false',
      'paused false->true',
      'concurrencyLimit unlimited->5',
    ]);
    // setting the same value again records nothing
    await cliOk(['queue', 'set', 'mail', '--resume'], db);
    expect((await list()).changes.filter((c) => c.queue === 'mail')).toHaveLength(3);
  });

  it('refuses bad values with exit 2 and one line naming the flag, changing nothing', async () => {
    const before = await list();
    const cases: [string[], RegExp][] = [
      [['queue', 'set', 'reports', '--limit', '0'], /^readpast queue set: --limit: must be an integer from 1 to 10000/],
      [['queue', 'set', 'reports', '--limit', 'x'], /^readpast queue set: --limit: must be an integer/],
      [['queue', 'set', 'reports', '--limit', '3', '--unlimited'], /^readpast queue set: --limit: cannot be combined with --unlimited/],
      [['queue', 'set', 'reports', '--pause', '--resume'], /^readpast queue set: --pause: cannot be combined with --resume/],
      [['queue', 'set', "x'; DROP TABLE Tasks;--", '--limit', '1'], /^readpast queue set: NAME: .* is not a queue name/],
      [['queue', 'set', 'reports'], /^readpast queue set: --limit: give --limit N, --unlimited, --pause or --resume/],
      [['queue', 'set', '--limit', '2'], /^readpast queue set: NAME: missing/],
    ];
    const results = await limited(cases, 3, ([args]) => cli(args, db));
    for (const [i, [args, message]] of cases.entries()) {
      const r = results[i]!;
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(message);
    }
    expect(await list()).toEqual(before);
    // the database still works after the name with SQL in it
    expect((await cliOk(['stats', '--json'], db)).length).toBeGreaterThan(0);
  });

  it('queue tokens: exit 3 for an unknown queue, empty for a queue nothing was claimed from', async () => {
    const unknown = await cli(['queue', 'tokens', 'nosuchqueue'], db);
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toBe('readpast queue tokens: no queue nosuchqueue\n');
    expect(JSON.parse(await cliOk(['queue', 'tokens', 'mail', '--json'], db))).toEqual([]);
    expect(await cliOk(['queue', 'tokens', 'mail'], db)).toMatch(/^queue mail: no tokens/);
  });
});

describe('readpast queue with a worker', () => {
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

  it('a paused queue is skipped while others flow; resume lets it run; a grant shows its task and worker', async () => {
    await cliOk(['queue', 'set', 'held', '--pause'], db);
    await cliOk(['queue', 'set', 'single', '--limit', '1'], db);
    const held = (await cliOk(['enqueue', '--handler', 'demo.echo', '--payload', '"held"', '--queue', 'held'], db)).trim();
    const free = (await cliOk(['enqueue', '--handler', 'demo.echo', '--payload', '"free"', '--queue', 'free'], db)).trim();
    // long enough to be still running while we look at it; cancelled at the end
    const long = (await cliOk(['enqueue', '--handler', 'demo.sleep', '--payload', '{"ms":120000}', '--queue', 'single'], db)).trim();
    for (const t of [held, free, long]) expect(t).toMatch(UUID);

    worker = new WorkerProcess(['--concurrency', '3'], db);
    const workerIds = await worker.started();
    const w = worker;

    // the singleton's task holds token 1: the grant names the task, its worker and when
    const grant = await waitFor(
      async () => {
        const tokens = JSON.parse(await cliOk(['queue', 'tokens', 'single', '--json'], db)) as TokenJson[];
        return tokens.find((t) => t.status === 'granted' && t.token === long);
      },
      { timeoutMs: 30_000, what: 'a granted token for the singleton task', workers: [w] },
    );
    expect(grant).toMatchObject({ queue: 'single', tokenNo: 1, attempt: 1, holderDead: false });
    expect(workerIds).toContain(grant.workerId);
    expect(grant.grantedAt).toMatch(ISO_MS);
    const human = await cliOk(['queue', 'tokens', 'single'], db);
    expect(human).toMatch(new RegExp(`^single\\s+1\\s+granted\\s+${long}\\s+1\\s+${grant.workerId}\\s.*\\balive$`, 'm'));
    const single = (JSON.parse(await cliOk(['queue', 'list', '--json'], db)) as ListJson).queues.find((q) => q.name === 'single');
    expect(single).toMatchObject({ concurrencyLimit: 1, running: 1, granted: 1 });

    // the free queue's task runs; the paused queue's does not
    await waitFor(async () => (await statusOf(free, db)).status === 'succeeded', {
      timeoutMs: 30_000,
      what: 'the free task',
      workers: [w],
    });
    // give the worker several polls in which it could have claimed the held task
    await new Promise((r) => setTimeout(r, 1500));
    expect((await statusOf(held, db)).status).toBe('pending');
    expect((JSON.parse(await cliOk(['queue', 'list', '--json'], db)) as ListJson).queues.find((q) => q.name === 'held')).toMatchObject({
      paused: true,
      pending: 1,
      running: 0,
    });

    await cliOk(['queue', 'set', 'held', '--resume'], db);
    const done = await waitFor(
      async () => {
        const s = await statusOf(held, db);
        return s.status === 'succeeded' && s;
      },
      { timeoutMs: 30_000, what: 'the held task after resume', workers: [w] },
    );
    expect(done.result).toBe('held');

    // the singleton still holds its token; once it ends (cancelled through its AbortSignal), the token is free again
    expect((await statusOf(long, db)).status).toBe('running');
    expect(await cliOk(['cancel', long], db)).toMatch(/^cancel requested/);
    await waitFor(async () => (await statusOf(long, db)).status === 'cancelled', {
      timeoutMs: 30_000,
      what: 'the singleton task to stop',
      workers: [w],
    });
    const after = JSON.parse(await cliOk(['queue', 'tokens', 'single', '--json'], db)) as TokenJson[];
    expect(after.map((t) => [t.tokenNo, t.status, t.token])).toEqual([[1, 'free', null]]);
  }, 120_000);
});
