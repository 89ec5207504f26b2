// What TypeScript generates for the T-SQL callers' interface (sql/callers.ts): the bounds come from
// lib/engine/limits.ts, the name checks accept exactly what the API's patterns accept, each error names
// its parameter, ExecAsync runs the store's own enqueue statement, and the role grants exactly these.
import { describe, expect, it } from 'vitest';
import * as limits from '../../lib/engine/limits';
import { MIGRATIONS } from './schema';
import { CODE_OBJECTS } from './code-objects';
import { ASYNC_EXEC_RESULTS_VIEW, CALLER_PROCEDURES, createProcedure, nameCheck, PAYLOAD_UTF8_BYTES, roleBatches } from './sql/callers';
import { ENQUEUE_WRITE } from './sql/enqueue';
import { HOT, hotName } from './sql/hot';
import { CANCEL_WRITE, RETRY_ONE_WRITE } from './sql/operators';

const proc = (name: string) => CALLER_PROCEDURES.find((p) => p.name === name)!;

/** Evaluate a nameCheck condition in JavaScript, as SQL Server would (binary collation LIKE). */
function evalNameCheck(condition: string, value: string): boolean {
  const len = /DATALENGTH\(\S+\) BETWEEN (\d+) AND (\d+)/.exec(condition)!;
  const first = /LIKE N'\[([^\]]+)\]%'/.exec(condition)!;
  const rest = /NOT LIKE N'%\[\^([^\]]+)\]%'/.exec(condition)!;
  const bytes = value.length * 2;
  const cls = (body: string) => new RegExp(`^[${body.replace(/[\\\]^]/g, '\\$&')}]$`);
  return (
    bytes >= Number(len[1]) &&
    bytes <= Number(len[2]) &&
    cls(first[1]!).test(value[0] ?? '') &&
    [...value].every((c) => cls(rest[1]!).test(c))
  );
}

describe('T-SQL callers: what TypeScript generates', () => {
  it('name checks accept exactly what the API patterns accept', () => {
    const samples = [
      'a',
      'default',
      'Reports',
      '9lives',
      'a.b:c-d_e',
      '-a',
      '_a',
      '.a',
      'a b',
      'a/b',
      'ä',
      'a%',
      'a[1]',
      'a^',
      '',
      'q'.repeat(64),
      'q'.repeat(65),
      'h'.repeat(128),
      'h'.repeat(129),
    ];
    const queue = nameCheck(limits.QUEUE_NAME, '@Queue', limits.MAX_QUEUE_NAME_LENGTH);
    const handler = nameCheck(limits.HANDLER_NAME, '@cmd', limits.MAX_HANDLER_NAME_LENGTH);
    for (const s of samples) {
      expect(evalNameCheck(queue, s), `queue ${s}`).toBe(limits.QUEUE_NAME.test(s));
      expect(evalNameCheck(handler, s), `handler ${s}`).toBe(limits.HANDLER_NAME.test(s));
    }
    expect(() => nameCheck(/^a+$/, '@x', 1)).toThrow(/not a simple name pattern/);
    expect(() => nameCheck(limits.QUEUE_NAME, '@x', 10)).toThrow();
  });

  it('ExecAsync carries the bounds of limits.ts and names the parameter in each error', () => {
    const body = proc('ExecAsync').body;
    for (const n of [
      limits.MIN_PRIORITY,
      limits.MAX_PRIORITY,
      limits.MAX_ATTEMPTS,
      limits.MAX_TIMEOUT_MS,
      2 * limits.MAX_DEDUP_KEY_LENGTH,
      limits.MAX_PAYLOAD_BYTES,
      2 * limits.MAX_SQL_CHARS,
      2 * limits.MAX_QUEUE_NAME_LENGTH,
      limits.MAX_STAGE,
    ]) {
      expect(body).toContain(String(n));
    }
    expect(body).toContain(`THROW 50010, N'@Queue: ${limits.QUEUE_NAME_RULE}', 1;`);
    const throws = [...body.matchAll(/THROW (\d+), (?:N'(@\w+)|@err)/g)];
    expect(throws.length).toBeGreaterThanOrEqual(14);
    expect(new Set(throws.map((t) => t[1])).size).toBe(throws.length);
    for (const t of throws)
      if (t[2])
        expect(
          proc('ExecAsync').params.some((p) => p.startsWith(`${t[2]} `)),
          t[0],
        ).toBe(true);
  });

  it('the procedures run the store statements themselves, so the two cannot drift', () => {
    // ExecAsync calls the store's own installed enqueue, and holds no copy of it
    expect(proc('ExecAsync').body).toContain(`EXEC ${hotName(HOT.enqueue)} @tasks = @tasks, @results = @results OUTPUT;`);
    expect(proc('ExecAsync').body).not.toContain(ENQUEUE_WRITE);
    expect(HOT.enqueue.body).toContain(ENQUEUE_WRITE);
    expect(proc('CancelTask').body).toContain(CANCEL_WRITE.replace(/@token\b/g, '@Token'));
    expect(proc('RetryTask').body).toContain(RETRY_ONE_WRITE.replace(/@token\b/g, '@Token'));
    // the caller's transaction decides: no ROLLBACK of its own, and no COMMIT beyond the nested pair
    for (const p of CALLER_PROCEDURES) expect(p.body, p.name).not.toMatch(/\bROLLBACK\b/);
    expect(proc('ExecAsync').params).toContain('@Token uniqueidentifier = NULL OUTPUT');
  });

  it('the code-object step installs every procedure, the view and the role with exactly its grants', () => {
    for (const p of CALLER_PROCEDURES) expect(CODE_OBJECTS.find((o) => o.name === p.name)?.text).toBe(createProcedure(p));
    expect(CODE_OBJECTS.find((o) => o.name === 'AsyncExecResults')?.text).toBe(ASYNC_EXEC_RESULTS_VIEW);
    expect(CODE_OBJECTS.filter((o) => o.grant).map((o) => `GRANT ${o.grant} ON readpast.${o.name} TO readpast_caller;`)).toEqual(
      roleBatches().filter((b) => b.startsWith('GRANT')),
    );
    // no migration holds them (migration 6 makes the role)
    for (const m of MIGRATIONS) expect(m.batches.join('\n'), `migration ${m.version}`).not.toMatch(/PROCEDURE readpast\.|GRANT /);
    const grants = roleBatches().filter((b) => b.startsWith('GRANT'));
    expect(grants.sort()).toEqual(
      [
        'GRANT EXECUTE ON readpast.CancelTask TO readpast_caller;',
        'GRANT EXECUTE ON readpast.ExecAsync TO readpast_caller;',
        'GRANT EXECUTE ON readpast.GetScheduler TO readpast_caller;',
        'GRANT EXECUTE ON readpast.ReleaseScheduler TO readpast_caller;',
        'GRANT EXECUTE ON readpast.RetryTask TO readpast_caller;',
        'GRANT EXECUTE ON readpast.SendEvent TO readpast_caller;',
        'GRANT EXECUTE ON readpast.Synchronization TO readpast_caller;',
        'GRANT SELECT ON readpast.AsyncExecResults TO readpast_caller;',
      ].sort(),
    );
    // Synchronization waits with no transaction open (it refuses inside one)
    expect(proc('Synchronization').body).toMatch(/IF @@TRANCOUNT > 0\s+THROW 50030/);
  });
});

/**
 * ExecAsync's payload bound as SQL Server computes it (PAYLOAD_UTF8_BYTES), read from the T-SQL text: the
 * band counted unit by unit, and the bytes per UTF-16 code unit of its CASE. Returns whether it refuses.
 */
function procedureRefuses(text: string): boolean {
  const band = /@payload_bytes \* 3 > (\d+) AND @payload_bytes <= (\d+)/.exec(PAYLOAD_UTF8_BYTES)!;
  const rule = /CASE WHEN x\.cu < (\d+) THEN 1 WHEN x\.cu < (\d+) OR x\.cu BETWEEN (\d+) AND (\d+) THEN 2 ELSE 3 END/.exec(
    PAYLOAD_UTF8_BYTES,
  )!;
  const [one, two, lo, hi] = rule.slice(1).map(Number) as [number, number, number, number];
  const bound = /@payload_bytes > (\d+)\)/.exec(proc('ExecAsync').body)!;
  const units = Buffer.from(text, 'utf16le').length / 2;
  let bytes = units;
  if (units * 3 > Number(band[1]) && units <= Number(band[2])) {
    bytes = 0;
    for (let i = 0; i < text.length; i++) {
      const cu = text.charCodeAt(i);
      bytes += cu < one ? 1 : cu < two || (cu >= lo && cu <= hi) ? 2 : 3;
    }
  }
  return bytes > Number(bound[1]);
}

describe('T-SQL callers: the payload bound in UTF-8 bytes', () => {
  it('refuses exactly the payloads the library refuses (Buffer.byteLength > MAX_PAYLOAD_BYTES)', () => {
    const MAX = limits.MAX_PAYLOAD_BYTES;
    const json = (ch: string, n: number) => JSON.stringify({ s: ch.repeat(n) });
    const samples = [
      json('a', 100),
      json('a', MAX - 8), // exactly MAX bytes
      json('a', MAX - 7),
      json('é', 120_000), // 2 bytes each: under
      json('é', 140_000), // over, though only 140,008 characters
      json('€', 80_000), // 3 bytes each: 240,008 bytes, under
      json('€', 90_000), // 270,008 bytes in 90,008 characters: the old check (characters) let it through
      json('😀', 60_000), // a surrogate pair: 4 bytes in 2 units
      json('😀', 66_000),
      json('€', Math.floor(MAX / 3) - 3), // just under the band: counted as units
      `${json('a', 50_000).slice(0, -2)}${'€'.repeat(70_000)}"}`,
      json('a', MAX + 1), // beyond MAX units: refused without counting
    ];
    for (const s of samples) {
      const library = Buffer.byteLength(s, 'utf8') > MAX;
      expect(procedureRefuses(s), `${s.length} chars, ${Buffer.byteLength(s, 'utf8')} bytes`).toBe(library);
    }
    // the old bound (DATALENGTH of the nvarchar, i.e. characters) accepted 270,008 bytes of €
    expect(Buffer.byteLength(json('€', 90_000), 'utf8')).toBeGreaterThan(MAX);
    expect(json('€', 90_000).length).toBeLessThan(MAX);
  });

  it("ExecAsync counts the payload in UTF-8 bytes; the enqueue takes the dedup key's lock", () => {
    expect(proc('ExecAsync').body).toContain(PAYLOAD_UTF8_BYTES);
    expect(ENQUEUE_WRITE).toMatch(/sys\.sp_getapplock @dedup_resource, 'Exclusive', 'Transaction';/);
    expect(ENQUEUE_WRITE).toMatch(/APPLOCK_MODE\(N'public', @dedup_resource, N'Transaction'\)/);
    // the lock comes before the lookup of an existing task with the key
    expect(ENQUEUE_WRITE.indexOf('sp_getapplock')).toBeLessThan(ENQUEUE_WRITE.indexOf('UPDATE i SET token = t.token, existing = 1'));
  });
});

/**
 * The public interface as released: each granted procedure's parameters and AsyncExecResults' columns, in order.
 * T-SQL callers call them by name (positionally too) from code readpast does not see, so a new definition keeps
 * every released parameter as it was, in its place, and only adds parameters after them, each with a default.
 * When a release adds parameters, append them here.
 */
const RELEASED: Record<string, readonly string[]> = {
  ExecAsync: [
    '@Command nvarchar(4000) = NULL',
    "@Kind varchar(16) = 'handler'",
    '@Sql nvarchar(max) = NULL',
    '@Payload nvarchar(max) = NULL',
    "@Queue nvarchar(4000) = N'default'",
    '@Priority int = 0',
    '@RunAt datetime2(3) = NULL',
    '@MaxAttempts int = NULL',
    '@TimeoutMs int = NULL',
    '@DedupKey nvarchar(4000) = NULL',
    '@BatchId bigint = NULL',
    '@Stage int = NULL',
    '@Token uniqueidentifier = NULL OUTPUT',
    '@ConcurrencyKey nvarchar(4000) = NULL',
    '@DependsOn nvarchar(max) = NULL',
    '@OnParentFailure nvarchar(10) = NULL',
    '@TraceParent varchar(100) = NULL',
  ],
  GetScheduler: ['@MaxParallel int = NULL', "@OnFailure varchar(16) = 'continue'", '@BatchId bigint = NULL OUTPUT'],
  ReleaseScheduler: ['@BatchId bigint'],
  Synchronization: ['@BatchId bigint', '@Stage int = NULL', '@TimeoutSeconds int = 60'],
  CancelTask: ['@Token uniqueidentifier'],
  RetryTask: ['@Token uniqueidentifier'],
  SendEvent: [
    '@Event nvarchar(4000)',
    '@Payload nvarchar(max) = NULL',
    '@Caller nvarchar(200) = NULL',
    '@EventId bigint = NULL OUTPUT',
    '@Resumed int = NULL OUTPUT',
    '@Tokens nvarchar(max) = NULL OUTPUT',
  ],
};
const RELEASED_RESULT_COLUMNS = [
  'token',
  'status',
  'kind',
  'command',
  'queue',
  'caller',
  'created',
  'started',
  'ended',
  'attempts',
  'max_attempts',
  'last_error_number',
  'last_error_message',
  'result',
];

/** The columns a view's SELECT list names (the alias, or the column), in order. */
function viewColumns(text: string): string[] {
  const list = /AS\s+SELECT\s+([\s\S]*?)\s+FROM\s/i.exec(text)![1]!;
  return list.split(',').map((c) => /(?:\bAS\s+|\.)(\w+)\s*$/i.exec(c.trim())![1]!);
}

/** Why `params` does not extend `released` (null: it does). */
function notAnExtension(released: readonly string[], params: readonly string[]): string | null {
  for (let i = 0; i < released.length; i++) if (params[i] !== released[i]) return `${released[i]} changed or moved (now ${params[i]})`;
  const bare = params.slice(released.length).find((p) => !/ = /.test(p));
  return bare ? `${bare} has no default` : null;
}

describe('T-SQL callers: a definition only ever extends the released interface', () => {
  it('every released parameter stays as it was, in its place; new ones come after, each with a default', () => {
    for (const p of CALLER_PROCEDURES.filter((x) => x.granted)) {
      const released = RELEASED[p.name];
      expect(released, `${p.name}: a granted procedure is public; add its parameters to RELEASED`).toBeDefined();
      expect(notAnExtension(released!, p.params), p.name).toBeNull();
    }
    expect(Object.keys(RELEASED).sort()).toEqual(
      CALLER_PROCEDURES.filter((x) => x.granted)
        .map((x) => x.name)
        .sort(),
    );
  });

  it('AsyncExecResults keeps its columns, in order; new ones come after', () => {
    expect(viewColumns(ASYNC_EXEC_RESULTS_VIEW).slice(0, RELEASED_RESULT_COLUMNS.length)).toEqual(RELEASED_RESULT_COLUMNS);
  });

  it('refuses a parameter inserted before a released one, a changed one, or one added without a default', () => {
    const exec = RELEASED.ExecAsync!;
    expect(notAnExtension(exec, [...exec, '@New int = NULL'])).toBeNull();
    expect(notAnExtension(exec, [...exec.slice(0, 2), '@New int = NULL', ...exec.slice(2)])).toMatch(/changed or moved/);
    expect(
      notAnExtension(
        exec,
        exec.map((x) => x.replace('= 0', '= 1')),
      ),
    ).toMatch(/@Priority int = 0 changed/);
    expect(notAnExtension(exec, [...exec, '@New int'])).toBe('@New int has no default');
    expect(viewColumns('CREATE VIEW v AS\n  SELECT t.a, t.b AS c, t.d FROM x AS t;')).toEqual(['a', 'c', 'd']);
  });
});
