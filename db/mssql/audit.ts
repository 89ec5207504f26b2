// The audit trail on SQL Server: a command's row written inside the command's own transaction
// (audited), appended alone (recordAudit), and read newest first, keyset-paged on id.
import { auditJson } from '../../lib/engine/audit';
import type { AuditWrite, CommandPort, ReadModel } from '../../lib/engine/ports';
import type { AuditFilter, AuditInput, AuditRecord, Page } from '../../lib/engine/types';
import { callOn, query, sql, type OutParam, type Param, type Shared, type Transaction } from './connection';
import { retrying } from './errors';
import * as S from './sql/audit';
import type { Slice } from '../shared/bind';
import { auditRecord, type AuditRow } from './rows';

const rowParams = (e: AuditInput): Param[] => [
  // a value the column refuses (NULL) fails the command's transaction, as any refused write does
  ['actor', sql.NVarChar(200), e.actor?.slice(0, 200) ?? null],
  ['source', sql.VarChar(10), e.source],
  ['action', sql.VarChar(64), e.action?.slice(0, 64) ?? null],
  ['target', sql.NVarChar(400), e.target?.slice(0, 400) ?? null],
  ['before_json', sql.NVarChar(sql.MAX), auditJson(e.before)],
  ['after_json', sql.NVarChar(sql.MAX), auditJson(e.after)],
  ['n', sql.Int, e.count ?? null],
];

/**
 * The store as seen inside one open transaction: every statement of the command runs on it, one at a
 * time (a transaction runs one request at once), none run again on its own after a deadlock (the
 * transaction is gone: `audited` runs the whole again), and wake-ups wait for the commit.
 */
function onTransaction(shared: Shared, t: Transaction, state: { woken: boolean; failure: unknown }): Shared {
  const s = Object.create(shared) as Shared;
  let turn: Promise<unknown> = Promise.resolve();
  const run = <T>(text: string, params: readonly Param[] = []) => {
    const r = turn.then(() => query<T>(t, text, params));
    turn = r.catch((err: unknown) => {
      state.failure ??= err;
    });
    return r;
  };
  s.query = run;
  s.write = run;
  // the installed procedures a concern calls (the enqueue: sql/hot.ts) join the transaction too
  s.callWrite = (<T>(name: string, params: readonly Param[], outputs: readonly OutParam[] = []) => {
    const r = turn.then(() => shared.judged(() => callOn<T>(t, name, params, outputs)));
    turn = r.catch((err: unknown) => {
      state.failure ??= err;
    });
    return r;
  }) as Shared['callWrite'];
  // statements a concern runs on the runner itself (setQueue, settling batches) are watched the same way
  const runner = Object.create(t) as Transaction;
  runner.request = () => {
    const req = t.request();
    const q = req.query.bind(req);
    req.query = ((text: string) =>
      q(text).catch((err: unknown) => {
        state.failure ??= err;
        throw err;
      })) as typeof req.query;
    return req;
  };
  s.runner = async () => runner;
  s.wake = () => {
    state.woken = true;
  };
  return s;
}

/** Insert the row built from `outcome`, or rewrite the row an earlier transaction of the action wrote; its id. */
async function writeAudit<R>(s: Shared, audit: AuditWrite<R>, outcome: R): Promise<number | undefined> {
  const built = audit.entry(outcome);
  const rows = built === null ? [] : Array.isArray(built) ? built : [built];
  if (rows.length === 0) return audit.id;
  if (audit.id !== undefined) {
    await s.query(S.UPDATE_AUDIT_ROW, [
      ['after_json', sql.NVarChar(sql.MAX), auditJson(rows[0]!.after)],
      ['n', sql.Int, rows[0]!.count ?? null],
      ['id', sql.BigInt, audit.id],
    ]);
    return audit.id;
  }
  let first: number | undefined;
  for (const e of rows) {
    const r = await s.query<{ id: string | number }>(S.INSERT_AUDIT_ROW, rowParams(e));
    first ??= Number(r.recordset[0]!.id);
  }
  return first;
}

/**
 * Run a command with its audit row in one transaction: `fn` gets the store bound to a transaction opened
 * on the shared pool (its batches' own BEGIN/COMMIT TRANSACTION nest inside it; XACT_ABORT is on for the
 * pool, so an error anywhere rolls all of it back); the row built from its outcome is inserted before the
 * commit, so the change and its record commit together or not at all. Run again whole after a deadlock.
 * Without `audit`, `fn` runs on the store as it always did.
 */
export async function audited<T>(shared: Shared, audit: AuditWrite<T> | undefined, fn: (s: Shared) => Promise<T>): Promise<T> {
  if (!audit) return fn(shared);
  let woken = false;
  const out = await retrying(async () => {
    const t = new sql.Transaction(await shared.pool());
    await t.begin();
    const state = { woken: false, failure: undefined as unknown };
    try {
      const s = onTransaction(shared, t, state);
      const r = await fn(s);
      const id = await writeAudit(s, audit, r);
      await t.commit();
      if (id !== undefined) audit.id = id;
      woken = state.woken;
      return r;
    } catch (err) {
      if ((t as unknown as { _aborted?: boolean })._aborted !== true) await t.rollback().catch(() => {});
      // the first error decides (a deadlock: run again), not what later statements said of the lost transaction
      throw state.failure ?? err;
    }
  });
  if (woken) shared.wake();
  return out;
}

/**
 * The CommandPort method of `fn`, which takes the store and the command's `n` arguments (n is checked
 * against fn's type): the method takes its audit after them and runs `fn` with the audit row in one
 * transaction (audited).
 */
export function auditedCommand<A extends unknown[], R>(fn: (s: Shared, ...args: A) => Promise<R>, n: A['length']) {
  return (shared: Shared, ...args: [...A, AuditWrite<R>?]): Promise<R> =>
    audited(shared, args[n] as AuditWrite<R> | undefined, (s) => fn(s, ...(args.slice(0, n) as A)));
}

/** `audited` on a transaction the caller opened (enqueue in the caller's transaction): the row joins it. */
export async function auditOn<T>(shared: Shared, t: Transaction, audit: AuditWrite<T> | undefined, outcome: T): Promise<void> {
  if (!audit) return;
  const state = { woken: false, failure: undefined as unknown };
  await writeAudit(onTransaction(shared, t, state), audit, outcome);
}

export async function recordAudit(shared: Shared, entries: AuditInput[]): Promise<void> {
  for (const e of entries) await shared.write(S.INSERT_AUDIT, rowParams(e));
}

export async function listAudit(shared: Shared, f: AuditFilter): Promise<Page<AuditRecord>> {
  const prefix = f.action?.endsWith('.') ? f.action.replace(/[\\%_[]/g, (c) => '\\' + c) + '%' : null;
  const exact = f.action && !prefix ? f.action : null;
  const r = await shared.query<AuditRow>(S.LIST_AUDIT, [
    ['limit', sql.Int, f.limit + 1],
    ['cursor', sql.BigInt, f.cursor ?? Number.MAX_SAFE_INTEGER],
    ['action', sql.VarChar(64), exact],
    ['action_prefix', sql.VarChar(130), prefix],
    ['target', sql.NVarChar(400), f.target ?? null],
    ['actor', sql.NVarChar(200), f.actor ?? null],
  ]);
  const rows = r.recordset;
  const more = rows.length > f.limit;
  const items = rows.slice(0, f.limit).map(auditRecord);
  return { items, nextCursor: more ? items[items.length - 1]!.id : null };
}

/** this module's part of the CommandPort (store.ts binds it to the store's Shared) */
export const commandSlice = { recordAudit } satisfies Slice<Shared, CommandPort>;

/** this module's part of the ReadModel (store.ts binds it to the store's Shared) */
export const readSlice = { listAudit } satisfies Slice<Shared, ReadModel>;
