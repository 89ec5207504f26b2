// What of the SQL Server transaction handling runs without a server: an external transaction is
// checked (an mssql Transaction, the same driver module) before any connection is made. The rest runs
// in the contract suite (db/contract/transactions.ts) when MSSQL_URL names a server.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ValidationError } from '../../lib/engine/errors';
import { sql } from './connection';
import { MssqlStore } from './store';
import { externalTransaction, transactionFor } from './transaction';
import { emptyTables } from './test-support/empty-tables';
import { openMssqlStore } from './store';
import { parseMssqlUrl, toConfig } from './url';

describe('enqueue on an external transaction (SQL Server)', () => {
  it('takes an mssql Transaction and refuses anything else, naming `transaction`', async () => {
    const pool = new sql.ConnectionPool({ server: 'localhost', database: 'x', user: 'u', password: 'p' });
    const t = new sql.Transaction(pool);
    expect(externalTransaction({ transaction: t })).toBe(t);
    expect(externalTransaction({})).toBeNull();
    expect(externalTransaction(undefined)).toBeNull();
    for (const bad of [{}, 'tx', 1, pool]) {
      const e = (() => {
        try {
          externalTransaction({ transaction: bad });
        } catch (err) {
          return err;
        }
      })();
      expect(e).toBeInstanceOf(ValidationError);
      expect((e as ValidationError).field).toBe('transaction');
    }
    // the store checks it before connecting (no server listens here)
    const store = new MssqlStore(parseMssqlUrl('mssql://u:p@127.0.0.1:1/readpast'), { log: () => {} });
    try {
      const e = await store.commands.enqueue({ kind: 'handler', command: 'demo.echo' }, { transaction: { begin() {} } }).catch((x) => x);
      expect(e).toBeInstanceOf(ValidationError);
      expect((e as ValidationError).field).toBe('transaction');
    } finally {
      await store.close();
    }
  });
});

describe('withTransaction statements (SQL Server)', () => {
  it('refuses statements that end the transaction, and positional parameters, before sending anything', async () => {
    const pool = new sql.ConnectionPool({ server: 'localhost', database: 'x', user: 'u', password: 'p' });
    const tx = transactionFor(new sql.Transaction(pool));
    for (const text of ['COMMIT', ' rollback transaction', 'BEGIN TRAN', 'begin distributed transaction']) {
      await expect(tx.execute(text)).rejects.toMatchObject({ field: 'sql' });
    }
    await expect(tx.execute('SELECT @p1', [1])).rejects.toMatchObject({ field: 'params' });
  });
});

const url = process.env.MSSQL_URL;

// Against a server (MSSQL_URL; skipped, and reported so, without one): a transaction the caller opened.
describe.skipIf(!url)('enqueue on an external transaction, against MSSQL_URL', () => {
  let store: MssqlStore;
  let pool: InstanceType<typeof sql.ConnectionPool>;
  const table = `rp_ext_${process.pid}`;
  beforeEach(async () => {
    store = await openMssqlStore(url!, { log: () => {} });
    await emptyTables(url!);
    pool = new sql.ConnectionPool(toConfig(parseMssqlUrl(url!), { appName: 'readpast tests', pool: { min: 0, max: 2 } }));
    pool.on('error', () => {});
    await pool.connect();
    await pool.request().batch(`IF OBJECT_ID(N'${table}') IS NOT NULL DROP TABLE ${table}; CREATE TABLE ${table} (id int PRIMARY KEY);`);
  });
  afterEach(async () => {
    await pool.request().batch(`IF OBJECT_ID(N'${table}') IS NOT NULL DROP TABLE ${table};`);
    await pool.close();
    await store.close();
  });

  it('the task exists only if the caller commits; the pool wakes on the commit', async () => {
    let wakes = 0;
    const off = store.worker.onWake(() => wakes++);
    const input = { kind: 'handler' as const, command: 'demo.echo', payload: null };
    const rolled = new sql.Transaction(pool);
    await rolled.begin();
    await new sql.Request(rolled).input('id', sql.Int, 1).query(`INSERT INTO ${table} (id) VALUES (@id)`);
    const gone = await store.commands.enqueue(input, { transaction: rolled });
    await rolled.rollback();
    expect(await store.reads.getTask(gone.token)).toBeNull();

    const kept = new sql.Transaction(pool);
    await kept.begin();
    await new sql.Request(kept).input('id', sql.Int, 2).query(`INSERT INTO ${table} (id) VALUES (@id)`);
    const [a, b] = await store.commands.enqueueMany([input, input], { transaction: kept });
    const before = wakes;
    await kept.commit();
    expect(wakes).toBeGreaterThan(before);
    off();
    expect((await store.reads.getTask(a!.token))?.status).toBe('pending');
    expect((await store.reads.getTask(b!.token))?.status).toBe('pending');
    const ids = (await pool.request().query<{ id: number }>(`SELECT id FROM ${table} ORDER BY id`)).recordset.map((r) => r.id);
    expect(ids).toEqual([2]);
    const counts = (await store.reads.countsByQueue()).find((c) => c.queue === 'default');
    expect(counts).toMatchObject({ pending: 2, running: 0 });
  });
});
