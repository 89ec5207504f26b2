// Claiming on SQL Server: one claim per slot (readpast.Claim_v<n>, the statement CLAIM installed:
// sql/hot.ts), each on its worker's own connection, so the session that claims an attempt is the one
// that runs it. The lanes, tokens and locks are in sql/claim.ts; the claim rules are listed once in
// lib/engine/claim-rules.ts, their T-SQL fragments in sql/claim.ts (CLAIM_RULE_SQL).
import type { ClaimedTask, ClaimOptions, WorkerSlot } from '../../lib/engine/types';
import { sql, type Logger, type Param, type Shared } from './connection';
import { retrying, serverMessage } from './errors';
import { claimedTask, id, intMs, parentResult, type ClaimRow, type ParentRow } from './rows';
import { CLAIM_PARENTS } from './sql/flows';
import { idleTag } from './session';
import { HOT, hotName } from './sql/hot';
import type { Workers } from './workers';

/** This process's claims: it remembers when it last served the unbatched lane (for fairness). */
export class Claims {
  private unbatchedServed = 0;

  constructor(
    private readonly workers: Workers,
    private readonly shared: Pick<Shared, 'statementTimeoutMs'>,
    private readonly log: Logger,
  ) {}

  /** One slot's claim, on that worker's own connection. */
  private async claimOne(slot: WorkerSlot, opts: ClaimOptions): Promise<ClaimedTask | null> {
    const conn = this.workers.connection(slot.workerId);
    await conn.ensureCurrent();
    const params: Param[] = [
      ['worker_id', sql.NVarChar(256), slot.workerId],
      ['lease_ms', sql.Int, intMs(opts.leaseMs)],
      ['queues', sql.NVarChar(sql.MAX), opts.queues?.length ? JSON.stringify(opts.queues) : null],
      ['unbatched_served', sql.BigInt, this.unbatchedServed],
    ];
    let r;
    try {
      r = await retrying(() => conn.call(hotName(HOT.claim), params, this.shared.statementTimeoutMs));
    } catch (err) {
      // a claim cut short may leave its session in a transaction, or on a dead socket: start afresh
      if (serverMessage(err).number === null) await conn.reset();
      throw err;
    }
    const sets = r.recordsets as unknown as ClaimRow[][];
    const row = sets[0]?.[0];
    if (!row) return null;
    // the unbatched lane's stamp (a key lane's turn is kept in ConcurrencyKeys)
    if (row.batch_id === null && row.concurrency_key === null)
      this.unbatchedServed = Math.max(this.unbatchedServed + 1, id(row.served_stamp));
    // the session that claimed it is the one that will run it; notice a reconnect now
    if (conn.info && row.session !== conn.info.session) await conn.tag(idleTag(slot.workerId));
    const task = claimedTask(row, slot.workerId);
    // its parents' results (ctx.parents), on the same session: only for a task that has parents
    if ((row.parent_count ?? 0) > 0) {
      const p = await conn.query<ParentRow>(CLAIM_PARENTS, [['ids', sql.NVarChar(sql.MAX), JSON.stringify([task.id])]]);
      task.parents = p.recordset.map(parentResult);
      // the spans of its parents' last attempts: the child's links (lib/engine/tracing-attempt.ts)
      const traces = p.recordset.flatMap((r) => (r.attempt_trace ? [r.attempt_trace] : []));
      if (traces.length) task.parentTraces = traces;
    }
    return task;
  }

  /**
   * Slot by slot, each on its worker's own connection (so a second claim sees what the first one
   * served and granted, as one transaction would). Stops at the first slot that finds nothing: a claim
   * goes on through its rounds until no candidate is left (sql/claim.ts), so an empty one means there is
   * nothing this worker may take now — not that rows were held by other claims.
   */
  async claim(slots: WorkerSlot[], opts: ClaimOptions): Promise<ClaimedTask[]> {
    const out: ClaimedTask[] = [];
    let failure: unknown = null;
    for (const slot of slots) {
      try {
        const c = await this.claimOne(slot, opts);
        if (!c) break;
        out.push(c);
      } catch (err) {
        failure ??= err;
        this.log(`worker ${slot.workerId}: claim failed`, err);
      }
    }
    if (failure && out.length === 0) throw failure;
    return out;
  }
}
