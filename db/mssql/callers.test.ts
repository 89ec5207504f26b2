// What TypeScript generates for the T-SQL callers' interface (sql/callers.ts): the bounds come from
// lib/engine/limits.ts, the name checks accept exactly what the API's patterns accept, each error names
// its parameter, ExecAsync runs the store's own enqueue statement, and the role grants exactly these.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import * as limits from '../../lib/engine/limits';
import { MIGRATIONS } from './schema';
import { CALLER_PROCEDURES, createProcedure, nameCheck, roleBatches } from './sql/callers';
import { ENQUEUE_WRITE } from './sql/enqueue';
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
      2 * limits.MAX_PAYLOAD_BYTES,
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
    expect(proc('ExecAsync').body).toContain(ENQUEUE_WRITE);
    expect(proc('CancelTask').body).toContain(CANCEL_WRITE.replace(/@token\b/g, '@Token'));
    expect(proc('RetryTask').body).toContain(RETRY_ONE_WRITE.replace(/@token\b/g, '@Token'));
    // the caller's transaction decides: no ROLLBACK of its own, and no COMMIT beyond the nested pair
    for (const p of CALLER_PROCEDURES) expect(p.body, p.name).not.toMatch(/\bROLLBACK\b/);
    expect(proc('ExecAsync').params).toContain('@Token uniqueidentifier = NULL OUTPUT');
  });

  it('migration 6 installs every procedure, the view and the role with exactly its grants', () => {
    const m = MIGRATIONS.find((x) => x.version === 6)!;
    for (const p of CALLER_PROCEDURES) expect(m.batches).toContain(createProcedure(p));
    expect(m.batches.some((b) => b.startsWith('CREATE OR ALTER VIEW readpast.AsyncExecResults'))).toBe(true);
    const grants = roleBatches().filter((b) => b.startsWith('GRANT'));
    expect(grants.sort()).toEqual(
      [
        'GRANT EXECUTE ON readpast.CancelTask TO readpast_caller;',
        'GRANT EXECUTE ON readpast.ExecAsync TO readpast_caller;',
        'GRANT EXECUTE ON readpast.GetScheduler TO readpast_caller;',
        'GRANT EXECUTE ON readpast.ReleaseScheduler TO readpast_caller;',
        'GRANT EXECUTE ON readpast.RetryTask TO readpast_caller;',
        'GRANT EXECUTE ON readpast.Synchronization TO readpast_caller;',
        'GRANT SELECT ON readpast.AsyncExecResults TO readpast_caller;',
      ].sort(),
    );
    // Synchronization waits with no transaction open (it refuses inside one)
    expect(proc('Synchronization').body).toMatch(/IF @@TRANCOUNT > 0\s+THROW 50030/);
  });
});

/** sha-256 (first 16 hex digits) of the procedures as migration 6 installs them (and migration 8 installs again: the history). */
const PINNED = 'ec41a50e0825bd7e';

describe('T-SQL callers: installed text', () => {
  it('is what migration 6 installed: a change needs a new migration that installs the procedures again', () => {
    const text = CALLER_PROCEDURES.map(createProcedure).join('\n');
    // When this fails because a shared statement (ENQUEUE_WRITE, CANCEL_WRITE, RETRY_ONE_WRITE,
    // SETTLE_BATCHES_WRITE) or a procedure changed: add a migration that runs CALLER_PROCEDURES again
    // (createProcedure), then record the new hash here.
    expect(createHash('sha256').update(text).digest('hex').slice(0, 16)).toBe(PINNED);
  });
});
