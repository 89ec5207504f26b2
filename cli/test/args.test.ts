// Argument handling in-process (main() with stdout/stderr captured): every bad argument exits 2 with
// one line naming the flag. The child-process tests in cli.test.ts cover a sample of these end to end.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { defaultRegistry } from '../../lib/engine/handlers';
import { intFlag, jsonFlag, queuesFlag, toUsageError } from '../args';
import { UsageError } from '../errors';
import { throttleFlagOf, throttlePatch } from '../throttle-flags';
import { loadHandlersModule } from '../handlers-module';
import { main } from '../main';
import { tempDb, type TempDb } from './helpers';

async function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((stdout += String(chunk)), true));
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((stderr += String(chunk)), true));
  try {
    const code = await main(args);
    return { code, stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

describe('readpast argument errors', () => {
  let db: TempDb;
  let saved: string | undefined;
  beforeAll(() => {
    db = tempDb();
    saved = process.env.READPAST_DATABASE_URL;
    process.env.READPAST_DATABASE_URL = db.url;
  });
  afterAll(() => {
    if (saved === undefined) delete process.env.READPAST_DATABASE_URL;
    else process.env.READPAST_DATABASE_URL = saved;
    db.cleanup();
  });

  const E = ['enqueue', '--handler', 'demo.echo'];
  const cases: [string[], RegExp][] = [
    [[...E, '--bogus'], /--bogus: unknown option/],
    [[...E, '-x'], /-x: unknown option/],
    [['enqueue', '--handler'], /--handler: needs a value/],
    [['enqueue'], /--handler: required/],
    [['enqueue', '--payload', '{}'], /--handler: required/],
    [[...E, '--priority', 'high'], /--priority: must be an integer/],
    [[...E, '--priority', '1.5'], /--priority: must be an integer/],
    [[...E, '--priority', '5000'], /--priority: must be an integer from -1000 to 1000/],
    [[...E, '--priority', '-5'], /--priority: .*--priority=VALUE/],
    [[...E, '--max-attempts', '0'], /--max-attempts/],
    [[...E, '--max-attempts', '101'], /--max-attempts/],
    [[...E, '--timeout-ms', '0'], /--timeout-ms/],
    [[...E, '--payload', '{not json'], /--payload: invalid JSON/],
    [[...E, '--payload'], /--payload: needs a value/],
    [[...E, '--run-at', 'tomorrow'], /--run-at: must be an ISO-8601 time/],
    [[...E, '--queue', 'no spaces!'], /--queue/],
    [[...E, '--dedup-key', ''], /--dedup-key/],
    [['enqueue', '--handler', 'no.such.handler'], /--handler: unknown handler "no.such.handler"/],
    [['enqueue', '--handler', ''], /--handler/],
    [[...E, '--sql', 'select 1'], /--handler: cannot be combined with --sql/],
    [['enqueue', '--sql', 'select 1', '--procedure', 'dbo.P'], /--sql: cannot be combined with --procedure/],
    [['enqueue', '--procedure', 'dbo.P'], /--procedure: procedure tasks need SQL Server; this database is SQLite/],
    [['enqueue', '--procedure', 'not a name'], /--procedure/],
    [[...E, '--handlers', './missing.mjs'], /--handlers: no such file/],
    [[...E, 'extra'], /unexpected argument "extra"/],
    [['status'], /TOKEN: missing/],
    [['status', 'not-a-token'], /TOKEN: not a task token/],
    [['status', randomUUID(), randomUUID()], /unexpected argument/],
    [['status', randomUUID(), '--json=yes'], /--json: takes no value/],
    [['retry'], /TOKEN: missing/],
    [['retry', '1234'], /TOKEN: not a task token/],
    [['cancel', 'x'], /TOKEN: not a task token/],
    [['stats', '--verbose'], /--verbose: unknown option/],
    [['stats', 'now'], /unexpected argument "now"/],
    [['migrate', '--force'], /--force: unknown option/],
    [['worker', '--concurrency', 'lots'], /--concurrency: must be an integer/],
    [['worker', '--concurrency', '0'], /--concurrency: must be an integer from 1/],
    [['worker', '--concurrency', '100000'], /--concurrency/],
    [['worker', '--lease-seconds', '0'], /--lease-seconds/],
    [['worker', '--lease-seconds', '2.5'], /--lease-seconds/],
    [['worker', '--queues', 'a,,b'], /--queues/],
    [['worker', '--queues', 'ok,bad queue'], /--queues: "bad queue"/],
    [['worker', '--handlers', 'missing.mjs'], /--handlers: no such file/],
    [[...E, '--stage', '1'], /--stage: needs --batch ID/],
    [[...E, '--batch', 'x'], /--batch: not a batch id/],
    [[...E, '--batch', '0'], /--batch: not a batch id/],
    [[...E, '--batch', '1', '--stage', '10001'], /--stage: must be an integer from 0 to 10000/],
    [[...E, '--batch', '1', '--stage', '-1'], /--stage: .*--stage=VALUE/],
    [['queue'], /^readpast queue: SUBCOMMAND: missing \(one of set, show, list, tokens\)/],
    [['queue', '--json'], /SUBCOMMAND: missing/],
    [['queue', 'frob'], /SUBCOMMAND: unknown "frob"/],
    [['queue', 'set'], /^readpast queue set: NAME: missing/],
    [['queue', 'set', 'q'], /--limit: give --limit N, --unlimited, --pause or --resume/],
    [['queue', 'set', 'q', '--limit', '0'], /^readpast queue set: --limit: must be an integer from 1 to 10000 \(got 0\)/],
    [['queue', 'set', 'q', '--limit', 'x'], /--limit: must be an integer/],
    [['queue', 'set', 'q', '--limit', '10001'], /--limit: must be an integer from 1 to 10000/],
    [['queue', 'set', 'q', '--limit'], /--limit: needs a value/],
    [['queue', 'set', 'q', '--limit', '3', '--unlimited'], /--limit: cannot be combined with --unlimited/],
    [['queue', 'set', 'q', '--pause', '--resume'], /--pause: cannot be combined with --resume/],
    [['queue', 'set', 'q', '--unlimited=yes'], /--unlimited: takes no value/],
    [['queue', 'set', "x'; DROP TABLE Tasks;--", '--limit', '1'], /NAME: .* is not a queue name/],
    [['queue', 'set', 'q', 'r', '--pause'], /unexpected argument "r"/],
    [['queue', 'list', 'extra'], /^readpast queue list: unexpected argument "extra"/],
    [['queue', 'set', 'q', '--per-key-limit', '0'], /^readpast queue set: --per-key-limit: must be an integer from 1 to 10000, or none/],
    [['queue', 'set', 'q', '--per-key-limit', 'one'], /--per-key-limit: must be an integer/],
    [['queue', 'set', 'q', '--per-key-limit'], /--per-key-limit: needs a value/],
    [['queue', 'set', 'q', '--key-from', 'customerId'], /^readpast queue set: --key-from: must be a JSON path like \$\.customerId/],
    [['queue', 'set', 'q', '--key-from', '$..a'], /--key-from: must be a JSON path/],
    [['queue', 'set', 'q', '--rate', '60'], /^readpast queue set: --rate: must be LIMIT\/PERIOD, e\.g\. 60\/1m/],
    [['queue', 'set', 'q', '--rate', '60/1w'], /--rate: must be LIMIT\/PERIOD/],
    [['queue', 'set', 'q', '--rate', '0/1m'], /--rate: the limit must be from 1 to 1000000/],
    [['queue', 'set', 'q', '--rate', '5/2d'], /--rate: the period must be from 1 s to 86400 s/],
    [['queue', 'set', 'q', '--rate-per-key'], /--rate-per-key: needs --rate LIMIT\/PERIOD/],
    [['queue', 'set', 'q', '--rate', 'none', '--rate-per-key'], /--rate-per-key: needs a rate/],
    [['queue', 'show'], /^readpast queue show: NAME: missing/],
    [['queue', 'show', 'bad name'], /NAME: "bad name" is not a queue name/],
    [['queue', 'show', 'q', '--keys', '0'], /--keys: must be an integer from 1 to 100/],
    [[...E, '--key', ''], /^readpast enqueue: --key: must not be empty/],
    [[...E, '--key', 'k'.repeat(201)], /--key: at most 200 characters/],
    [['queue', 'tokens', 'a', 'b'], /unexpected argument "b"/],
    [['queue', 'tokens', 'bad name'], /NAME: "bad name" is not a queue name/],
    [['batch'], /^readpast batch: SUBCOMMAND: missing/],
    [['batch', 'start'], /SUBCOMMAND: unknown "start"/],
    [['batch', 'create', '--max-parallel', '0'], /^readpast batch create: --max-parallel: must be an integer from 1/],
    [['batch', 'create', '--max-parallel', 'many'], /--max-parallel: must be an integer/],
    [['batch', 'create', '--on-failure', 'stop'], /--on-failure: must be continue or abort \(got "stop"\)/],
    [['batch', 'create', '7'], /unexpected argument "7"/],
    [['batch', 'status'], /^readpast batch status: ID: missing/],
    [['batch', 'status', 'abc'], /ID: not a batch id/],
    [['batch', 'status', '0'], /ID: not a batch id/],
    [['batch', 'status', '1.5'], /ID: not a batch id/],
    [['batch', 'status', '-1'], /^readpast batch status: -1 is not an option and not a value this command takes/],
    [['batch', 'release', '1', '2'], /unexpected argument "2"/],
    [['batch', 'cancel', '--force', '1'], /--force: unknown option/],
    [['batch', 'wait'], /ID: missing/],
    [['batch', 'wait', '1', '--stage', 'last'], /^readpast batch wait: --stage: must be an integer/],
    [['batch', 'wait', '1', '--stage', '-1'], /--stage: .*--stage=VALUE/],
    [['batch', 'wait', '1', '--timeout-s', 'soon'], /--timeout-s: must be an integer/],
    [['batch', 'wait', '1', '--timeout-s', '1.5'], /--timeout-s: must be an integer/],
    [['frobnicate'], /unknown command "frobnicate"/],
    [['help', 'frobnicate'], /no command "frobnicate"/],
  ];

  it.each(cases)('readpast %j → exit 2', async (args, message) => {
    const r = await run(args);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.endsWith('\n')).toBe(true);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^readpast/);
    expect(r.stderr).toMatch(message);
  });

  it('reports a missing task as exit 3', async () => {
    const token = randomUUID();
    for (const cmd of ['status', 'retry', 'cancel']) {
      const r = await run([cmd, token]);
      expect(r.code, `${cmd}: ${r.stderr}`).toBe(3);
      expect(r.stderr).toContain(`no task with token ${token}`);
    }
  });

  it('reports a missing batch or queue as exit 3', async () => {
    for (const args of [
      ['batch', 'status', '424242'],
      ['batch', 'release', '424242'],
      ['batch', 'cancel', '424242'],
      ['batch', 'wait', '424242'],
    ]) {
      const r = await run(args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(3);
      expect(r.stderr).toBe(`readpast batch ${args[1]}: no batch 424242\n`);
    }
    const e = await run(['enqueue', '--handler', 'demo.echo', '--batch', '424242', '--stage', '1']);
    expect(e.code, e.stderr).toBe(3);
    expect(e.stderr).toBe('readpast enqueue: --batch: no batch 424242\n');
    const q = await run(['queue', 'tokens', 'no.such.queue']);
    expect(q.code).toBe(3);
    expect(q.stderr).toBe('readpast queue tokens: no queue no.such.queue\n');
    const shown = await run(['queue', 'show', 'no.such.queue']);
    expect(shown.code).toBe(3);
    expect(shown.stderr).toBe('readpast queue show: no queue no.such.queue\n');
  });

  it('help covers the queue and batch subcommands and exit code 5', async () => {
    const general = await run(['help']);
    for (const line of [
      'queue set NAME',
      'queue show NAME',
      'queue list',
      'queue tokens',
      'batch create',
      'batch status ID',
      'batch wait ID',
      'batch release ID',
      'batch cancel ID',
    ]) {
      expect(general.stdout).toContain(line);
    }
    expect(general.stdout).toMatch(/5\s+timed out/);
    const queue = await run(['help', 'queue']);
    expect(queue.stdout).toContain('--unlimited');
    for (const flag of ['--per-key-limit N|none', '--key-from PATH|none', '--rate RATE|none', '--rate-per-key', '--keys N'])
      expect(queue.stdout).toContain(flag);
    expect((await run(['help', 'enqueue'])).stdout).toContain('--key K');
    expect((await run(['help', 'queue', 'set'])).stdout).toBe(queue.stdout);
    expect((await run(['queue', 'set', '--help'])).stdout).toBe(queue.stdout);
    const batch = await run(['help', 'batch']);
    expect(batch.stdout).toContain('--on-failure');
    expect(batch.stdout).toMatch(/exits 5/);
    expect((await run(['batch', 'wait', '1', '--help'])).stdout).toBe(batch.stdout);
    expect((await run(['help', 'enqueue'])).stdout).toContain('--stage K');
    // an unknown subcommand after help shows how to use help
    expect((await run(['help', 'queue', 'frob'])).stdout).toBe((await run(['help', 'help'])).stdout);
  });

  it('prints usage for help and --help, exit 0', async () => {
    const general = await run(['help']);
    expect(general.code).toBe(0);
    expect(general.stdout).toContain('Exit codes');
    for (const cmd of ['migrate', 'worker', 'enqueue', 'status', 'stats', 'retry', 'cancel', 'queue', 'batch']) {
      const a = await run(['help', cmd]);
      const b = await run([cmd, '--help']);
      expect(a.code).toBe(0);
      expect(a.stdout).toContain(`readpast ${cmd}`);
      expect(b.stdout).toBe(a.stdout);
    }
  });
});

describe('flag value helpers', () => {
  it('parse integers strictly', () => {
    expect(intFlag('--n', undefined, 0, 9)).toBeUndefined();
    expect(intFlag('--n', '7', 0, 9)).toBe(7);
    expect(intFlag('--n', '-3', -5, 9)).toBe(-3);
    for (const bad of ['', ' ', '1e3', '0x10', '3.0', 'NaN', '99999999999999999999']) {
      expect(() => intFlag('--n', bad, -1e30, 1e30), bad).toThrow(UsageError);
    }
    expect(() => intFlag('--n', '10', 0, 9)).toThrow(/--n: must be an integer from 0 to 9/);
  });

  it('parse JSON and queue lists', () => {
    expect(jsonFlag('--payload', '{"a":[1,2]}')).toEqual({ a: [1, 2] });
    expect(jsonFlag('--payload', '"text"')).toBe('text');
    expect(() => jsonFlag('--payload', "{'a':1}")).toThrow(/--payload: invalid JSON/);
    expect(queuesFlag('--queues', 'a, b,a')).toEqual(['a', 'b']);
    expect(() => queuesFlag('--queues', '')).toThrow(/--queues/);
  });

  it('read the throttle flags of queue set, none clearing each', () => {
    expect(throttlePatch({})).toEqual({});
    expect(throttlePatch({ 'per-key-limit': '1', 'key-from': '$.customerId', rate: '60/1m' })).toEqual({
      perKeyLimit: 1,
      keyFrom: '$.customerId',
      rateLimit: { limit: 60, periodSeconds: 60, perKey: false },
    });
    expect(throttlePatch({ 'per-key-limit': 'none', 'key-from': 'NONE', rate: 'none' })).toEqual({
      perKeyLimit: null,
      keyFrom: null,
      rateLimit: null,
    });
    const perKey = { limit: 20, periodSeconds: 2, perKey: true };
    expect(throttlePatch({ rate: '20/2s', 'rate-per-key': true })).toEqual({ rateLimit: perKey });
    expect(throttlePatch({ rate: '20/2s per key' })).toEqual({ rateLimit: perKey });
    expect(throttlePatch({ rate: '1000/1h' }).rateLimit).toEqual({ limit: 1000, periodSeconds: 3600, perKey: false });
    expect(throttlePatch({ 'key-from': ' $.items[0].id ' }).keyFrom).toBe('$.items[0].id');
    for (const [flags, message] of [
      [{ 'per-key-limit': '10001' }, /^--per-key-limit: must be an integer from 1 to 10000, or none \(got "10001"\)$/],
      [{ 'per-key-limit': '1.5' }, /^--per-key-limit:/],
      [{ 'key-from': 'customerId' }, /^--key-from: must be a JSON path/],
      [{ rate: 'fast' }, /^--rate: must be LIMIT\/PERIOD.* \(got "fast"\)$/],
      [{ 'rate-per-key': true }, /^--rate-per-key:/],
    ] as const) {
      expect(() => throttlePatch(flags), JSON.stringify(flags)).toThrow(message);
    }
    expect(throttleFlagOf('rateLimit.periodSeconds')).toBe('--rate');
    expect(throttleFlagOf('perKeyLimit')).toBe('--per-key-limit');
    expect(throttleFlagOf('keyFrom')).toBe('--key-from');
    expect(throttleFlagOf('paused')).toBeNull();
  });

  it('leave errors other than parseArgs ones alone', () => {
    const e = new Error('other');
    expect(toUsageError(e)).toBe(e);
  });
});

describe('--handlers MODULE', () => {
  let db: TempDb;
  beforeAll(() => {
    db = tempDb();
    writeFileSync(join(db.dir, 'fn.mjs'), "export default (r) => { r.register('t.fn', (p) => ({ fn: p })); };\n");
    writeFileSync(
      join(db.dir, 'named.mjs'),
      "export function register(r) { r.register('t.named', () => 'named'); }\nexport default 'ignored';\n",
    );
    writeFileSync(join(db.dir, 'object.mjs'), "export default { 't.one': () => 1, 't.two': async () => 2 };\n");
    writeFileSync(
      join(db.dir, 'async.mjs'),
      "export default async (r) => { await new Promise((ok) => setTimeout(ok, 5)); r.register('t.async', () => 'a'); };\n",
    );
    writeFileSync(join(db.dir, 'not-handlers.mjs'), 'export default 42;\n');
    writeFileSync(join(db.dir, 'broken.mjs'), 'export default function (\n');
    writeFileSync(join(db.dir, 'throws.mjs'), "export default () => { throw new Error('no database here'); };\n");
    writeFileSync(join(db.dir, 'badname.mjs'), "export default { 'has space': () => 1 };\n");
  });
  afterAll(() => db.cleanup());

  it('accepts a default function, a register export, an object of handlers and an async registrar', async () => {
    const registry = defaultRegistry();
    expect(await loadHandlersModule('./fn.mjs', registry, db.dir)).toEqual(['t.fn']);
    expect(await loadHandlersModule('named.mjs', registry, db.dir)).toEqual(['t.named']);
    expect(await loadHandlersModule(join(db.dir, 'object.mjs'), registry, '/')).toEqual(['t.one', 't.two']);
    expect(await loadHandlersModule('./async.mjs', registry, db.dir)).toEqual(['t.async']);
    const handler = registry.get('t.fn')!;
    expect(await handler({ x: 1 }, {} as never)).toEqual({ fn: { x: 1 } });
    expect(registry.has('demo.sleep')).toBe(true);
  });

  it('refuses missing files, wrong exports, failing registrars and bad names, naming --handlers', async () => {
    const registry = defaultRegistry();
    await expect(loadHandlersModule('./nope.mjs', registry, db.dir)).rejects.toThrow(/^--handlers: no such file/);
    await expect(loadHandlersModule('./throws.mjs', registry, db.dir)).rejects.toThrow(/^--handlers: .*no database here/);
    await expect(loadHandlersModule('./badname.mjs', registry, db.dir)).rejects.toThrow(/^--handlers: .*invalid handler name/);
    await expect(loadHandlersModule('./broken.mjs', registry, db.dir)).rejects.toThrow(/^--handlers: cannot load/);
    await expect(loadHandlersModule('', registry, db.dir)).rejects.toThrow(UsageError);
    const wrong = await run(['worker', '--handlers', join(db.dir, 'not-handlers.mjs')]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/^readpast worker: --handlers: .*export a function/);
  });
});

describe('exit codes by class (README, Exit codes)', () => {
  const withEnv = async (env: Record<string, string>, args: string[]) => {
    const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
    Object.assign(process.env, env);
    try {
      return await run(args);
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  };
  const server = 'mssql://u:p@127.0.0.1:1/db?encrypt=false&connectTimeout=2000';

  it.each([
    [{ READPAST_DATABASE_URL: 'postgres://db/jobs' }, /^readpast stats: READPAST_DATABASE_URL: expected sqlite:<path>, mssql:/],
    [{ READPAST_DATABASE_URL: 'sqlite:' }, /^readpast stats: READPAST_DATABASE_URL: sqlite: needs a file path/],
    [{ READPAST_DATABASE_URL: 'mssql://u:p@/db' }, /^readpast stats: READPAST_DATABASE_URL: SQL Server URL has no host/],
    [{ READPAST_DATABASE_URL: server, READPAST_WAKE_MS: 'soon' }, /^readpast stats: READPAST_WAKE_MS: 0 \(off\) or 1 to 60000 ms/],
  ])('a configuration refused is exit 2, one line naming the variable: %j', async (env, message) => {
    const r = await withEnv(env, ['stats']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(message);
  });

  it('a database that does not answer is exit 1 (a failure at run time)', async () => {
    const r = await withEnv({ READPAST_DATABASE_URL: server }, ['stats']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/^readpast stats: error: /);
    expect(r.stderr).not.toContain(':p@');
  });
});
