// A transactional step on SQLite (lib/engine/durable.ts `ctx.transaction`): the caller's statements and the step's
// record in one transaction of the store's transaction connection (transaction.ts). That connection holds the file's
// one write lock from BEGIN IMMEDIATE to the end, so the fence read at the end cannot change before the commit; and
// meanwhile every other writer of the file waits (this process's on the store's gate, other processes on
// SQLITE_BUSY): the step's timeout (at most half the lease, lib/engine/durable.ts) bounds that wait.
import type { RunningAttempt, StepSql } from '../../lib/engine/ports';
import type { StepWrite } from '../../lib/engine/types';
import * as S from './sql/steps';
import { fenced } from './steps';
import { stmt } from './stmt';
import type { Transactions } from './transaction';

/** A value better-sqlite3 binds: a boolean as 1/0, a Date as its ISO text, undefined as NULL. */
function bindable(params: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (params === undefined) return undefined;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(params)) {
    out[k] = typeof v === 'boolean' ? (v ? 1 : 0) : v instanceof Date ? v.toISOString() : v === undefined ? null : v;
  }
  return out;
}

class FenceLost extends Error {}

/** A transactional step; false when the attempt no longer owns its task (rolled back). */
export async function transactionStep(
  transactions: Transactions,
  attempt: RunningAttempt,
  step: StepWrite,
  fn: (sql: StepSql) => Promise<unknown>,
  timeoutMs: number,
): Promise<boolean> {
  try {
    await transactions.runOwn(
      async (tx) => {
        const result = await fn({ execute: (sql, params) => tx.execute(sql, bindable(params)) });
        const recorded = tx.write((db) => stmt(db, S.RECORD_STEP).run(fenced(attempt, { ...step, result }, Date.now())).changes === 1);
        if (!recorded) throw new FenceLost();
      },
      { timeoutMs },
    );
    return true;
  } catch (err) {
    if (err instanceof FenceLost) return false;
    throw err;
  }
}
