// The procedure-parameter lookup and KILL behind the API and server actions: on a real SQLite file
// (which has neither) and on a store object that has them. A real SQL Server store cannot be
// opened on this machine (no server), so the SQL Server side is a minimal object implementing only
// `describeProcedure` / `killSession` as the Store interface declares them; the store's own
// behaviour is covered by db/mssql's tests.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Readpast } from '@/lib/api/readpast';
import { ConflictError } from '@/lib/engine/errors';
import type { SqlServerExtras, Store } from '@/lib/engine/ports';
import type { ProcedureParameter } from '@/lib/engine/types';
import { openReadpast } from '@/lib/api/open';
import { describeError } from './http';
import { killTaskSession, procedureNameParam, procedureParameters } from '@/lib/api/procedures';

const param = (name: string, type: string, extra: Partial<ProcedureParameter> = {}): ProcedureParameter => ({
  name,
  type,
  maxLength: null,
  precision: null,
  scale: null,
  isOutput: false,
  isTable: false,
  ...extra,
});

const CATALOG: Record<string, ProcedureParameter[]> = {
  'dbo.usp_charge': [
    param('customer_id', 'int', { precision: 10, scale: 0 }),
    param('amount', 'decimal', { precision: 18, scale: 4 }),
    param('note', 'nvarchar', { maxLength: 50 }),
    param('receipt_id', 'uniqueidentifier', { isOutput: true }),
  ],
  '[ops].[nightly rollup]': [],
};

/** only what the SqlServerExtras port declares for this capability: name → parameters, null when absent */
function catalogStore(): Pick<Store, 'dialect'> & { sqlServer: Pick<SqlServerExtras, 'describeProcedure'>; asked: string[] } {
  const asked: string[] = [];
  return {
    dialect: 'mssql',
    asked,
    sqlServer: {
      async describeProcedure(name: string) {
        asked.push(name);
        return CATALOG[name] ?? null;
      },
    },
  };
}

const statusOf = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (err) {
    return describeError(err);
  }
  throw new Error('expected a rejection');
};

describe('on SQLite', () => {
  let dir: string;
  let rp: Readpast;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'readpast-server-procs-'));
    rp = await openReadpast({ url: `sqlite:${join(dir, 'db.sqlite')}` });
  });
  afterAll(async () => {
    await rp.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses the parameter lookup with 400 naming `kind`', async () => {
    expect(rp.dialect).toBe('sqlite');
    const r = await statusOf(rp.procedureParameters('dbo.usp_charge'));
    expect(r.status).toBe(400);
    expect(r.body.field).toBe('kind');
    expect(r.body.error).toContain('procedure tasks need SQL Server');
    expect(r.body.error).toContain('SQLite');
  });

  it('GET /api/handlers says what the store can run: no procedure kind, dialect sqlite', async () => {
    const r = await rp.handlers();
    expect(r.kinds).toEqual(['handler', 'sql']);
    expect(r.dialect).toBe('sqlite');
    expect(r.handlers).toEqual(expect.arrayContaining(['demo.echo', 'demo.sleep']));
  });

  it('refuses KILL with 400 whatever the token', async () => {
    const { token } = await rp.enqueue({ command: 'demo.echo', payload: { a: 1 } });
    for (const t of [token, 'not-a-token']) {
      const r = await statusOf(rp.killSession(t));
      expect(r.status).toBe(400);
      expect(r.body.error).toContain('KILL needs SQL Server');
    }
  });
});

describe('with a store that describes procedures', () => {
  it('returns the parameter list under the name asked for', async () => {
    const store = catalogStore();
    const r = await procedureParameters(store, 'dbo.usp_charge');
    expect(r.procedure).toBe('dbo.usp_charge');
    expect(r.parameters.map((p) => [p.name, p.type, p.isOutput])).toEqual([
      ['customer_id', 'int', false],
      ['amount', 'decimal', false],
      ['note', 'nvarchar', false],
      ['receipt_id', 'uniqueidentifier', true],
    ]);
    expect(r.parameters[1]).toMatchObject({ precision: 18, scale: 4 });
  });

  it('decodes a still percent-encoded path segment, brackets and spaces included', async () => {
    const store = catalogStore();
    const r = await procedureParameters(store, encodeURIComponent('[ops].[nightly rollup]'));
    expect(r).toEqual({ procedure: '[ops].[nightly rollup]', parameters: [] });
    expect(store.asked).toEqual(['[ops].[nightly rollup]']);
  });

  it('is 404 for a procedure the database does not have', async () => {
    const r = await statusOf(procedureParameters(catalogStore(), 'dbo.nope'));
    expect(r.status).toBe(404);
    expect(r.body.error).toContain('dbo.nope');
  });

  it('is 400 naming `name` for a malformed name, without asking the store', async () => {
    for (const bad of ['', 'dbo.usp;DROP TABLE x', 'a.b.c', '1abc', "x'--", '[unclosed']) {
      const store = catalogStore();
      const r = await statusOf(procedureParameters(store, bad));
      expect(r.status, bad).toBe(400);
      expect(r.body.field).toBe('name');
      expect(store.asked).toEqual([]);
    }
  });

  it('procedureNameParam keeps valid names as given', () => {
    expect(procedureNameParam('usp_x')).toBe('usp_x');
    expect(procedureNameParam('dbo.usp_x')).toBe('dbo.usp_x');
    expect(procedureNameParam('%5Bdbo%5D.%5Bmy%20proc%5D')).toBe('[dbo].[my proc]');
  });
});

describe('KILL with a store that can', () => {
  const TOKEN = '0190f5c2-7b1e-7cc3-9a55-3b2f6d1e8a01';
  const killer = (answer: () => Promise<'killed' | 'not_found' | 'conflict'>) => {
    const seen: string[] = [];
    const store: Pick<Store, 'dialect'> & { sqlServer: Pick<SqlServerExtras, 'killSession'> } = {
      dialect: 'mssql',
      sqlServer: {
        killSession: (token) => {
          seen.push(token);
          return answer();
        },
      },
    };
    return { store, seen };
  };

  it('kills by the lower-cased token', async () => {
    const k = killer(async () => 'killed');
    expect(await killTaskSession(k.store, TOKEN.toUpperCase())).toEqual({ status: 'killed' });
    expect(k.seen).toEqual([TOKEN]);
  });

  it('maps not_found to 404, conflict to 409, and keeps the store reason', async () => {
    expect((await statusOf(killTaskSession(killer(async () => 'not_found').store, TOKEN))).status).toBe(404);
    const c = await statusOf(killTaskSession(killer(async () => 'conflict').store, TOKEN));
    expect(c.status).toBe(409);
    expect(c.body.error).toContain('not running');
    const reason = 'this login lacks ALTER ANY CONNECTION: KILL is not available';
    const r = await statusOf(
      killTaskSession(
        killer(async () => {
          throw new ConflictError(reason);
        }).store,
        TOKEN,
      ),
    );
    expect(r).toEqual({ status: 409, body: { error: reason } });
  });

  it('is 400 naming `token` for a malformed token, without asking the store', async () => {
    const k = killer(async () => 'killed');
    const r = await statusOf(killTaskSession(k.store, 'abc'));
    expect(r.status).toBe(400);
    expect(r.body.field).toBe('token');
    expect(k.seen).toEqual([]);
  });
});
