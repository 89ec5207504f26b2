// The `readpast` command line as users run it: real child processes over a temporary SQLite file.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StatusJson } from '../../lib/api/present';
import { cli, cliOk, ISO_MS, limited, ROOT, statusOf, tempDb, UUID, waitFor, WorkerProcess, type TempDb } from './helpers';

const STATUS_KEYS = [
  'token',
  'status',
  'queue',
  'kind',
  'command',
  'priority',
  'attempts',
  'maxAttempts',
  'createdAt',
  'startedAt',
  'finishedAt',
  'result',
  'lastError',
  'history',
];
const ATTEMPT_KEYS = ['attempt', 'workerId', 'session', 'startedAt', 'endedAt', 'outcome', 'errorNumber', 'errorMessage'];

const isoOrNull = (v: unknown) => v === null || (typeof v === 'string' && ISO_MS.test(v));

/** The shape issue 2 promises for `status --json` (extra fields allowed). */
function expectStatusShape(s: StatusJson): void {
  for (const k of STATUS_KEYS) expect(s, `status --json has ${k}`).toHaveProperty(k);
  expect(s.token).toMatch(UUID);
  expect(s.createdAt).toMatch(ISO_MS);
  expect(isoOrNull(s.startedAt), `startedAt ${s.startedAt}`).toBe(true);
  expect(isoOrNull(s.finishedAt), `finishedAt ${s.finishedAt}`).toBe(true);
  expect(Number.isInteger(s.priority) && Number.isInteger(s.attempts) && Number.isInteger(s.maxAttempts)).toBe(true);
  expect(Array.isArray(s.history)).toBe(true);
  for (const h of s.history) {
    for (const k of ATTEMPT_KEYS) expect(h, `history entry has ${k}`).toHaveProperty(k);
    expect(h.startedAt).toMatch(ISO_MS);
    expect(isoOrNull(h.endedAt)).toBe(true);
    expect(Number.isInteger(h.attempt)).toBe(true);
  }
}

describe('readpast without a worker', () => {
  let db: TempDb;
  beforeAll(() => {
    db = tempDb();
  });
  afterAll(() => db.cleanup());

  it('prints help, per-command usage, and refuses an unknown command', async () => {
    const [help, flag, enqueueHelp, none, unknown] = await Promise.all([
      cli(['help'], db),
      cli(['--help'], db),
      cli(['enqueue', '--help'], db),
      cli([], db),
      cli(['frobnicate'], db),
    ]);
    expect(help.code).toBe(0);
    for (const c of ['migrate', 'worker', 'enqueue', 'status', 'stats', 'retry', 'cancel']) expect(help.stdout).toContain(c);
    expect(help.stdout).toMatch(/3\s+not found/);
    expect(help.stdout).toMatch(/4\s+conflict/);
    expect(flag.code).toBe(0);
    expect(flag.stdout).toBe(help.stdout);
    expect(enqueueHelp.code).toBe(0);
    expect(enqueueHelp.stdout).toContain('--dedup-key');
    expect(none.code).toBe(2);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.trim().split('\n')).toHaveLength(1);
    expect(unknown.stderr).toContain('frobnicate');
  });

  it('migrates idempotently, saying what it applied and installed the first time and nothing the second', async () => {
    const fresh = tempDb();
    try {
      const first = await cliOk(['migrate'], fresh);
      // the view and triggers the migrations made are already as this readpast defines them: nothing installed
      expect(first).toMatch(new RegExp(`^migrated ${fresh.url}\\napplied migrations 1, 2, 3, [\\d, ]+\\n$`));
      expect(await cliOk(['migrate'], fresh)).toBe(`migrated ${fresh.url}\n`);
    } finally {
      fresh.cleanup();
    }
  });

  it('migrate --allow-sql takes on or off, and is a SQL Server setting', async () => {
    const bad = await cli(['migrate', '--allow-sql', 'maybe'], db);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--allow-sql');
    const sqlite = await cli(['migrate', '--allow-sql', 'on'], db);
    expect(sqlite.code).toBe(2);
    expect(sqlite.stderr).toMatch(/SQL Server/);
  });

  it('enqueue prints the token alone on stdout; status --json has the documented shape', async () => {
    const r = await cli(
      [
        'enqueue',
        '--handler',
        'demo.echo',
        '--payload',
        '{"hello":"world"}',
        '--queue',
        'q1',
        '--priority',
        '7',
        '--max-attempts',
        '3',
        '--timeout-ms',
        '5000',
      ],
      db,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^${UUID.source.slice(1, -1)}\\n$`));
    const token = r.stdout.trim();
    const s = await statusOf(token, db);
    expectStatusShape(s);
    expect(s).toMatchObject({
      token,
      status: 'pending',
      queue: 'q1',
      kind: 'handler',
      command: 'demo.echo',
      priority: 7,
      attempts: 0,
      maxAttempts: 3,
      startedAt: null,
      finishedAt: null,
      result: null,
      lastError: null,
      history: [],
    });
    expect(Date.now() - Date.parse(s.createdAt!)).toBeLessThan(60_000);

    const human = await cliOk(['status', token], db);
    expect(human).toContain(token);
    expect(human).toMatch(/status:\s+pending/);
  });

  it('accepts --run-at and --dedup-key (a duplicate prints the same token)', async () => {
    const runAt = new Date(Date.now() + 3600_000).toISOString();
    const a = await cliOk(['enqueue', '--handler', 'demo.echo', '--run-at', runAt, '--dedup-key', 'nightly'], db);
    const b = await cliOk(['enqueue', '--handler', 'demo.echo', '--dedup-key', 'nightly'], db);
    expect(a.trim()).toMatch(UUID);
    expect(b).toBe(a);
    const s = await statusOf(a.trim(), db);
    expect(s.runAfter).toBe(runAt);
  });

  it('rejects bad arguments with exit 2 and one line naming the flag (the full table is in args.test.ts)', async () => {
    const cases: [string[], RegExp][] = [
      [['enqueue', '--handler', 'demo.echo', '--bogus'], /--bogus/],
      [['enqueue', '--handler'], /--handler/],
      [['enqueue', '--handler', 'demo.echo', '--priority', 'high'], /--priority/],
      [['enqueue', '--handler', 'demo.echo', '--payload', '{not json'], /--payload/],
      [['enqueue', '--handler', 'demo.echo', '--run-at', 'tomorrow'], /--run-at/],
      [['enqueue', '--handler', 'no.such.handler'], /--handler.*unknown handler/],
      [['enqueue', '--handler', 'demo.echo', '--sql', 'select 1'], /--handler.*--sql/],
      [['status', 'not-a-token'], /TOKEN/],
      [['worker', '--concurrency', 'lots'], /--concurrency/],
    ];
    const results = await limited(cases, 3, ([args]) => cli(args, db));
    results.forEach((r, i) => {
      const [args, flag] = cases[i]!;
      const what = `readpast ${args.join(' ')} → ${r.code}: ${r.stderr}`;
      expect(r.code, what).toBe(2);
      expect(r.stdout, what).toBe('');
      expect(r.stderr.trim().split('\n'), what).toHaveLength(1);
      expect(r.stderr, what).toMatch(flag);
    });
  });

  it('loads a TypeScript --handlers module, so enqueue accepts its handler names', async () => {
    writeFileSync(
      join(db.dir, 'typed.ts'),
      [
        "import type { HandlerRegistry } from '" + join(ROOT, 'lib/engine/handlers') + "';",
        'interface Invoice { id: number }',
        'export function register(registry: HandlerRegistry): void {',
        "  registry.register('billing.invoice', (p: Invoice) => ({ invoiced: p.id }));",
        '}',
      ].join('\n'),
    );
    const without = await cli(['enqueue', '--handler', 'billing.invoice'], db);
    expect(without.code).toBe(2);
    const r = await cli(['enqueue', '--handlers', './typed.ts', '--handler', 'billing.invoice', '--payload', '{"id":7}'], {
      ...db,
      cwd: db.dir,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toMatch(UUID);
    expect((await statusOf(r.stdout.trim(), db)).command).toBe('billing.invoice');
  });

  it('refuses a procedure task on SQLite with a clear message', async () => {
    const r = await cli(['enqueue', '--procedure', 'dbo.CloseMonth', '--payload', '{"year":2024}'], db);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/--procedure/);
    expect(r.stderr).toMatch(/SQL Server/);
    expect(r.stderr).toMatch(/SQLite/);
  });

  it('retry and cancel: 0 on success, 3 when not found, 4 on a conflict', async () => {
    const later = new Date(Date.now() + 3600_000).toISOString();
    const token = (await cliOk(['enqueue', '--handler', 'demo.sleep', '--run-at', later], db)).trim();
    const unknown = randomUUID();
    const [cancelled, missingCancel, missingRetry, missingStatus, pendingRetry] = await Promise.all([
      cli(['cancel', token], db),
      cli(['cancel', unknown], db),
      cli(['retry', unknown], db),
      cli(['status', unknown], db),
      // a second, still pending task cannot be retried
      cliOk(['enqueue', '--handler', 'demo.echo', '--run-at', later], db).then((t) => cli(['retry', t.trim()], db)),
    ]);
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(cancelled.stdout).toContain('cancelled');
    for (const r of [missingCancel, missingRetry, missingStatus]) {
      expect(r.code, r.stderr).toBe(3);
      expect(r.stderr).toContain(unknown);
    }
    expect(pendingRetry.code, pendingRetry.stderr).toBe(4);
    expect((await statusOf(token, db)).status).toBe('cancelled');

    const again = await cli(['cancel', token], db);
    expect(again.code, again.stderr).toBe(4);
    expect(again.stderr.trim().split('\n')).toHaveLength(1);

    const retried = await cli(['retry', token.toUpperCase()], db);
    expect(retried.code, retried.stderr).toBe(0);
    expect(retried.stdout).toContain(token);
    expect((await statusOf(token, db)).status).toBe('pending');
  });

  it('retry of a task whose dedup key an unfinished task holds: 4, naming the key and the holder', async () => {
    const later = new Date(Date.now() + 3600_000).toISOString();
    const first = (await cliOk(['enqueue', '--handler', 'demo.echo', '--dedup-key', 'k-held', '--run-at', later], db)).trim();
    expect((await cli(['cancel', first], db)).code).toBe(0);
    const holder = (await cliOk(['enqueue', '--handler', 'demo.echo', '--dedup-key', 'k-held', '--run-at', later], db)).trim();
    expect(holder).not.toBe(first);
    const r = await cli(['retry', first], db);
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toContain(`dedup key "k-held" is held by task ${holder} (pending)`);
    expect((await statusOf(first, db)).status).toBe('cancelled');
  });
});

describe('readpast with a worker', () => {
  let db: TempDb;
  let worker: WorkerProcess;
  let workerIds: string[];
  const opts = () => ({ env: db.env, cwd: db.dir });

  beforeAll(async () => {
    db = tempDb();
    // a handlers module in the working directory, loaded by a relative path
    writeFileSync(
      join(db.dir, 'handlers.mjs'),
      [
        'export default function register(registry) {',
        "  registry.register('test.double', (payload, ctx) => ({ doubled: payload.n * 2, attempt: ctx.attempt, pid: process.pid }));",
        '}',
      ].join('\n'),
    );
    worker = new WorkerProcess(['--concurrency', '3', '--handlers', './handlers.mjs'], opts());
    workerIds = await worker.started();
  });
  afterAll(async () => {
    worker?.kill();
    await worker?.exited;
    db?.cleanup();
  });

  const settled = (token: string, what: string) =>
    waitFor(
      async () => {
        const s = await statusOf(token, opts());
        return ['succeeded', 'dead', 'cancelled'].includes(s.status) ? s : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200, what, workers: [worker] },
    );

  it('runs a handler from --handlers MODULE end to end', async () => {
    expect(workerIds).toHaveLength(3);
    const viaModule = (
      await cliOk(['enqueue', '--handlers', './handlers.mjs', '--handler', 'test.double', '--payload', '{"n":21}'], opts())
    ).trim();
    // the worker recorded its handler names, so enqueue accepts them without the module too
    const viaRegistration = (await cliOk(['enqueue', '--handler', 'test.double', '--payload', '{"n":5}'], opts())).trim();
    const [a, b] = await Promise.all([settled(viaModule, 'test.double #1'), settled(viaRegistration, 'test.double #2')]);
    expect(a.status).toBe('succeeded');
    expect(a.result).toEqual({ doubled: 42, attempt: 1, pid: worker.pid });
    expect(b.result).toEqual({ doubled: 10, attempt: 1, pid: worker.pid });
    expectStatusShape(a);
    expect(a.history).toHaveLength(1);
    expect(a.history[0]).toMatchObject({ attempt: 1, outcome: 'succeeded', errorNumber: null, errorMessage: null });
    expect(workerIds).toContain(a.history[0]!.workerId);
    expect(Number.isInteger(a.history[0]!.session)).toBe(true);
    expect(Date.parse(a.finishedAt!)).toBeGreaterThanOrEqual(Date.parse(a.startedAt!));
  });

  it('records a failure: status --json lastError and history carry the error number and message', async () => {
    const token = (
      await cliOk(
        ['enqueue', '--handler', 'demo.fail', '--payload', '{"message":"ledger locked","number":1205}', '--max-attempts', '1'],
        opts(),
      )
    ).trim();
    const s = await settled(token, 'demo.fail');
    expectStatusShape(s);
    expect(s.status).toBe('dead');
    expect(s.lastError).toMatchObject({ number: 1205, message: 'ledger locked' });
    expect(s.history).toHaveLength(1);
    expect(s.history[0]).toMatchObject({ attempt: 1, outcome: 'failed', errorNumber: 1205, errorMessage: 'ledger locked' });
    const human = await cliOk(['status', token], opts());
    expect(human).toContain('[1205] ledger locked');

    // retry grants another attempt; it fails again
    expect((await cli(['retry', token], opts())).code).toBe(0);
    const again = await waitFor(
      async () => {
        const x = await statusOf(token, opts());
        return x.status === 'dead' && x.history.length === 2 ? x : undefined;
      },
      { what: 'second attempt of demo.fail', workers: [worker] },
    );
    expect(again.history.map((h) => h.attempt).sort()).toEqual([1, 2]);
  });

  it('runs a --sql task on the worker', async () => {
    const token = (await cliOk(['enqueue', '--sql', 'SELECT 6 * 7 AS answer'], opts())).trim();
    const s = await settled(token, 'sql task');
    expect(s.status).toBe('succeeded');
    expect(s.kind).toBe('sql');
    expect(JSON.stringify(s.result)).toContain('42');
  });

  it('cancels a running task through its AbortSignal', async () => {
    const token = (await cliOk(['enqueue', '--handler', 'demo.sleep', '--payload', '{"ms":60000}'], opts())).trim();
    await waitFor(async () => (await statusOf(token, opts())).status === 'running', { what: 'demo.sleep to start', workers: [worker] });
    const r = await cli(['cancel', token], opts());
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('cancel requested');
    const s = await settled(token, 'cancelled sleep');
    expect(s.status).toBe('cancelled');
    expect(s.history.at(-1)?.outcome).toBe('cancelled');
  });

  it('stats shows counts per queue and the workers with their heartbeat age', async () => {
    const token = (await cliOk(['enqueue', '--handler', 'demo.echo', '--queue', 'counted'], opts())).trim();
    expect((await settled(token, 'demo.echo in queue counted')).status).toBe('succeeded');
    const stats = JSON.parse(await cliOk(['stats', '--json'], opts())) as {
      queues: { queue: string; pending: number; running: number; succeeded: number; dead: number }[];
      totals: Record<string, number>;
      workers: { workerId: string; heartbeatAgeMs: number; state: string; pid: number }[];
    };
    expect(stats.queues.find((x) => x.queue === 'counted')).toMatchObject({ pending: 0, running: 0, succeeded: 1, dead: 0 });
    expect(stats.totals.succeeded).toBeGreaterThanOrEqual(1);
    expect(Object.keys(stats.totals).sort()).toEqual(['cancelled', 'claimed', 'dead', 'pending', 'running', 'succeeded', 'waiting']);
    const mine = stats.workers.filter((w) => workerIds.includes(w.workerId));
    expect(mine).toHaveLength(3);
    for (const w of mine) {
      expect(w.pid).toBe(worker.pid);
      expect(w.state).toBe('running');
      expect(w.heartbeatAgeMs).toBeGreaterThanOrEqual(0);
      expect(w.heartbeatAgeMs).toBeLessThan(15_000);
    }
    const human = await cliOk(['stats'], opts());
    expect(human).toMatch(/QUEUE\s+PENDING\s+RUNNING\s+SUCCEEDED\s+DEAD\s+CANCELLED/);
    expect(human).toContain(workerIds[0]!);
    expect(human).toMatch(/ago/);
  });

  it('SIGTERM lets the running task finish, then exits 0', async () => {
    // long enough that a status poll (one CLI process each, seconds on a busy machine) sees it running
    const token = (await cliOk(['enqueue', '--handler', 'demo.sleep', '--payload', '{"ms":6000}'], opts())).trim();
    await waitFor(async () => (await statusOf(token, opts())).status === 'running', { what: 'demo.sleep to start', workers: [worker] });
    const exit = await worker.stop('SIGTERM');
    expect(exit).toEqual({ code: 0, signal: null });
    const s = await statusOf(token, opts());
    expect(s.status).toBe('succeeded');
    expect(worker.logs().some((l) => l.msg === 'worker stopped')).toBe(true);
    const stats = JSON.parse(await cliOk(['stats', '--json'], opts())) as { workers: { workerId: string; state: string }[] };
    for (const w of stats.workers.filter((x) => workerIds.includes(x.workerId))) expect(w.state).toBe('stopped');
  });
});

describe('readpast worker and a second signal', () => {
  it('exits at once on the second SIGTERM, leaving the task to lease rescue', async () => {
    const db = tempDb();
    const worker = new WorkerProcess(['--concurrency', '1', '--lease-seconds', '2'], db);
    try {
      await worker.started();
      const token = (await cliOk(['enqueue', '--handler', 'demo.sleep', '--payload', '{"ms":60000}'], db)).trim();
      await waitFor(async () => (await statusOf(token, db)).status === 'running', { what: 'demo.sleep to start', workers: [worker] });
      worker.child.kill('SIGTERM');
      await waitFor(() => worker.logs().some((l) => typeof l.msg === 'string' && l.msg.startsWith('stopping')), {
        what: 'the worker to begin stopping',
      });
      const t0 = Date.now();
      const exit = await worker.stop('SIGTERM', 10_000);
      expect(exit.code).toBe(143);
      expect(Date.now() - t0).toBeLessThan(5_000);
      // the task is not lost: still visible as running until its lease is rescued
      expect((await statusOf(token, db)).status).toBe('running');
    } finally {
      worker.kill();
      db.cleanup();
    }
  });
});
