// Claiming on SQL Server: one claim for every idle slot of the pool, in one round trip (readpast.Claim_<hash>, the
// statement CLAIM installed: sql/hot.ts). The slots go as a JSON list of (worker, session); the procedure fills them in
// order and logs each attempt with its slot's worker and session — the worker's own connection, which runs it — so
// the SPID in ExecutionLog is the one that runs the attempt, whichever connection sent the claim (the first slot's).
// The lanes, tokens and locks are in sql/claim.ts; the claim rules are listed once in lib/engine/claim-rules.ts, their
// T-SQL fragments in sql/claim.ts (CLAIM_RULE_SQL).
import type { ClaimedTask, ClaimOptions, WorkerSlot } from '../../lib/engine/types';
import { sql, type Logger, type Param, type Shared } from './connection';
import { retrying, serverMessage } from './errors';
import { claimedTask, id, intMs, parentResult, type ClaimRow, type ParentRow } from './rows';
import { CLAIM_PARENTS } from './sql/flows';
import { idleTag, type WorkerConnection } from './session';
import { HOT, hotName } from './sql/hot';
import type { Workers } from './workers';

/** A row of the claim: a claimed task with the slot's worker it was claimed for. */
type SlotClaimRow = ClaimRow & { worker_id: string };

/** A claimed task's row (the last result set, the touched batches, has none of these). */
const isClaimRow = (row: Record<string, unknown>): boolean => 'worker_id' in row && 'token' in row;

/** This process's claims: it remembers when it last served the unbatched lane (for fairness). */
export class Claims {
  private unbatchedServed = 0;

  constructor(
    private readonly workers: Workers,
    private readonly shared: Pick<Shared, 'statementTimeoutMs'>,
    private readonly log: Logger,
  ) {}

  /**
   * The slots whose worker's connection can be used now, with it (its session read again only after a reconnect: no
   * round trip otherwise). A worker whose connection cannot be opened gets no task this time; the others still do.
   */
  private async usable(slots: WorkerSlot[]): Promise<{ slots: { slot: WorkerSlot; conn: WorkerConnection }[]; failure: unknown }> {
    const ready = new Map<string, Promise<WorkerConnection | null>>();
    let failure: unknown = null;
    for (const slot of slots) {
      if (ready.has(slot.workerId)) continue;
      const conn = this.workers.connection(slot.workerId);
      ready.set(
        slot.workerId,
        conn.ensureCurrent().then(
          () => conn,
          (err: unknown) => {
            failure ??= err;
            this.log(`worker ${slot.workerId}: its connection cannot be used; no claim for it this time`, err);
            return null;
          },
        ),
      );
    }
    const out: { slot: WorkerSlot; conn: WorkerConnection }[] = [];
    for (const slot of slots) {
      const conn = await ready.get(slot.workerId)!;
      if (conn) out.push({ slot, conn });
    }
    return { slots: out, failure };
  }

  /**
   * Every slot in one request, sent on the first slot's connection: the procedure fills the slots in order (a slot's
   * claim sees what the ones before it took, as claims sent one by one would) and stops at the first that finds
   * nothing — its rounds went on until no candidate was left, so the slots after it would find nothing either.
   */
  async claim(slots: WorkerSlot[], opts: ClaimOptions): Promise<ClaimedTask[]> {
    if (slots.length === 0) return [];
    const { slots: ready, failure } = await this.usable(slots);
    if (ready.length === 0) throw failure;
    const claimer = ready[0]!.conn;
    // a slot of the claiming connection's own worker runs on this very session: the procedure takes @@SPID for it
    const list = ready.map(({ slot, conn }) => ({
      workerId: slot.workerId,
      session: conn === claimer ? null : (conn.info?.session ?? null),
    }));
    const params: Param[] = [
      ['slots', sql.NVarChar(sql.MAX), JSON.stringify(list)],
      ['lease_ms', sql.Int, intMs(opts.leaseMs)],
      ['queues', sql.NVarChar(sql.MAX), opts.queues?.length ? JSON.stringify(opts.queues) : null],
      ['unbatched_served', sql.BigInt, this.unbatchedServed],
    ];
    let r;
    try {
      r = await retrying(async () => {
        const got = await claimer.callStreamed(hotName(HOT.claim), params, this.shared.statementTimeoutMs);
        if (got.error !== null && !got.sets.some((set) => set.some(isClaimRow))) throw got.error;
        return got;
      });
    } catch (err) {
      // a claim cut short may leave its session in a transaction, or on a dead socket: start afresh
      if (serverMessage(err).number === null) await claimer.reset();
      throw err;
    }
    // a task per slot filled, each sent once committed: those that came are their workers' even if the claim then failed
    const rows = r.sets.flat().filter(isClaimRow) as unknown as SlotClaimRow[];
    if (r.error !== null) {
      this.log(`claim failed after it claimed ${rows.length} task(s), which run`, r.error);
      if (serverMessage(r.error).number === null) await claimer.reset();
    }
    if (rows.length === 0) return [];
    for (const row of rows) {
      // the unbatched lane's stamp (a key lane's turn is kept in ConcurrencyKeys, a batch's in Batches)
      if (row.batch_id === null && row.concurrency_key === null)
        this.unbatchedServed = Math.max(this.unbatchedServed + 1, id(row.served_stamp));
    }
    // the claiming connection's session as the server saw it: notice a reconnect now (its worker row follows)
    const own = rows.find((row) => row.worker_id === claimer.workerId);
    if (own && claimer.info && own.session !== claimer.info.session) await claimer.tag(idleTag(claimer.workerId));
    const tasks = rows.map((row) => claimedTask(row, row.worker_id));
    // their parents' results (ctx.parents), in one statement on the same session: only for tasks that have parents
    const withParents = rows.filter((row) => (row.parent_count ?? 0) > 0).map((row) => id(row.id));
    if (withParents.length > 0) {
      const p = await claimer.query<ParentRow>(CLAIM_PARENTS, [['ids', sql.NVarChar(sql.MAX), JSON.stringify(withParents)]]);
      const byTask = new Map(tasks.map((t) => [t.id, t]));
      for (const row of p.recordset) {
        const task = byTask.get(id(row.child_id));
        if (!task) continue;
        task.parents.push(parentResult(row));
        // the spans of its parents' last attempts: the child's links (lib/engine/tracing-attempt.ts)
        if (row.attempt_trace) (task.parentTraces ??= []).push(row.attempt_trace);
      }
    }
    return tasks;
  }
}
