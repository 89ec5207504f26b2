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

describe('readpast queue throttle', () => {
  let db: TempDb;
  beforeAll(() => {
    db = tempDb();
  });
  afterAll(() => db.cleanup());

  const show = async (name: string) =>
    JSON.parse(await cliOk(['queue', 'show', name, '--json'], db)) as QueueJson & { changes: ChangeJson[] };

  it('queue set takes a per-key limit, a keyFrom path and a rate; show lists them, the window and the top keys', async () => {
    const line = await cliOk(['queue', 'set', 'exports', '--per-key-limit', '1', '--key-from', '$.customerId', '--rate', '60/1m'], db);
    expect(line).toBe('queue exports: limit unlimited, running 0, pending 0, granted 0, per key 1, key from $.customerId, rate 60/1m\n');
    for (const c of ['acme', 'acme', 'beta']) {
      const payload = JSON.stringify({ customerId: c });
      expect((await cliOk(['enqueue', '--handler', 'demo.echo', '--queue', 'exports', '--payload', payload], db)).trim()).toMatch(UUID);
    }
    // an explicit key wins over the one keyFrom finds
    const given = (
      await cliOk(['enqueue', '--handler', 'demo.echo', '--queue', 'exports', '--key', 'zeta', '--payload', '{"customerId":"acme"}'], db)
    ).trim();
    expect((await statusOf(given, db)).concurrencyKey).toBe('zeta');
    expect(await cliOk(['status', given], db)).toMatch(/^key:\s+zeta$/m);

    const q = await show('exports');
    expect(q).toMatchObject({
      name: 'exports',
      perKeyLimit: 1,
      keyFrom: '$.customerId',
      rateLimit: { limit: 60, periodSeconds: 60, perKey: false },
      rate: { limit: 60, periodSeconds: 60, perKey: false, started: 0, nextAt: null },
      pending: 4,
    });
    expect(q.keys).toEqual([
      { key: 'acme', running: 0, pending: 2 },
      { key: 'beta', running: 0, pending: 1 },
      { key: 'zeta', running: 0, pending: 1 },
    ]);
    expect(q.changes.map((c) => [c.field, c.oldValue, c.newValue])).toEqual([
      ['rateLimit', 'none', '60/1m'],
      ['keyFrom', 'none', '$.customerId'],
      ['perKeyLimit', 'none', '1'],
    ]);

    const human = await cliOk(['queue', 'show', 'exports', '--keys', '2'], db);
    expect(human).toMatch(/^per-key limit\s+1$/m);
    expect(human).toMatch(/^key from\s+\$\.customerId$/m);
    expect(human).toMatch(/^rate\s+60\/1m$/m);
    expect(human).toMatch(/^window\s+0 of 60 started in the last 60 s; a start is allowed now$/m);
    expect(human).toMatch(/^KEY\s+RUNNING\s+PENDING\n^acme\s+0\s+2\n^beta\s+0\s+1$/m);
    expect(human).not.toMatch(/^zeta/m);
    // queue list shows the throttle under the table, which keeps its columns
    const list = await cliOk(['queue', 'list'], db);
    expect(list).toMatch(/^QUEUE\s+LIMIT\s+PAUSED\s+RUNNING\s+PENDING\s+GRANTED$/m);
    expect(list).toMatch(/^exports\s+per key 1, key from \$\.customerId, rate 60\/1m$/m);
  }, 120_000);

  it('a per-key rate, then none clears each setting; every change is recorded', async () => {
    await cliOk(['queue', 'set', 'mailer', '--rate', '20/2s', '--rate-per-key'], db);
    expect((await show('mailer')).rateLimit).toEqual({ limit: 20, periodSeconds: 2, perKey: true });
    await cliOk(['queue', 'set', 'mailer', '--rate', '100/1h per key', '--per-key-limit', '3'], db);
    expect((await show('mailer')).rateLimit).toEqual({ limit: 100, periodSeconds: 3600, perKey: true });
    const json = JSON.parse(
      await cliOk(['queue', 'set', 'mailer', '--rate', 'none', '--per-key-limit', 'none', '--key-from', 'none', '--json'], db),
    ) as QueueJson;
    expect(json).toMatchObject({ perKeyLimit: null, keyFrom: null, rateLimit: null, rate: null });
    expect((await show('mailer')).changes.map((c) => `${c.field} ${c.oldValue} -> ${c.newValue}`)).toEqual([
      'rateLimit 100/1h per key -> none',
      'perKeyLimit 3 -> none',
      'rateLimit 20/2s per key -> 100/1h per key',
      'perKeyLimit none -> 3',
      'rateLimit none -> 20/2s per key',
    ]);
  }, 120_000);

  it('refuses bad throttle values with exit 2 naming the flag, changing nothing', async () => {
    const before = await show('exports');
    const cases: [string[], RegExp][] = [
      [['queue', 'set', 'exports', '--per-key-limit', '0'], /^readpast queue set: --per-key-limit: must be an integer from 1 to 10000/],
      [['queue', 'set', 'exports', '--key-from', 'customer id'], /^readpast queue set: --key-from: must be a JSON path/],
      [['queue', 'set', 'exports', '--rate', '60 per minute'], /^readpast queue set: --rate: must be LIMIT\/PERIOD/],
      [['queue', 'set', 'exports', '--rate', '2000000/1m'], /^readpast queue set: --rate: the limit must be from 1 to 1000000/],
      [['enqueue', '--handler', 'demo.echo', '--queue', 'exports', '--key', 'k'.repeat(201)], /^readpast enqueue: --key: at most 200/],
      [['queue', 'show', 'nosuchqueue'], /^readpast queue show: no queue nosuchqueue$/m],
    ];
    const results = await limited(cases, 3, ([args]) => cli(args, db));
    for (const [i, [args, message]] of cases.entries()) {
      const r = results[i]!;
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(args[1] === 'show' ? 3 : 2);
      expect(r.stderr).toMatch(message);
    }
    expect(await show('exports')).toEqual(before);
  }, 120_000);
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
