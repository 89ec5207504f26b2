// Ending attempts: a worker's settlements (fenced on task, worker and attempt), each releasing the
// attempt's concurrency token; then, before the transaction commits, the batches whose tasks moved are
// settled — aborted on a failure where their policy says so, completed once all their tasks are terminal.
// A settled task moves its children (edges.ts): a success readies them, dead or cancelled applies their policies.
import { fingerprint } from '../../lib/engine/fingerprint';
import type { AttemptResult, ErrorInfo } from '../../lib/engine/types';
import { stageTimes } from './batches';
import type { Db, Shared } from './connection';
import { parentsFailed, parentsSucceeded } from './edges';
import { suspendAttempt } from './events';
import { suspendedUntil } from './steps';
import { releaseToken } from './queues';
import { toJson } from './rows';
import { BATCH_STATUS } from './sql/batches';
import * as S from './sql/settle';
import { stmt } from './stmt';
import type { Tally, TaskKey } from './tally';

/** What an ended attempt held. */
export type Ended = TaskKey & { token_no: number | null };

/** Settle attempts; false where the attempt no longer owns its task or its lease expired. */
export async function finish(shared: Shared, results: AttemptResult[]): Promise<boolean[]> {
  if (results.length === 0) return [];
  const r = await shared.tx((tally, now) => settleAttempts(shared.db, results, tally, now));
  if (r.wake) shared.wake();
  return r.accepted;
}

/** Log an attempt's end, release its token, and move its task's counts. */
export function endAttempt(
  db: Db,
  t: Ended,
  taskId: number,
  attempt: number,
  outcome: string,
  err: ErrorInfo | null,
  to: string,
  tally: Tally,
  now: number,
  startedAt: number | null = null,
): void {
  const end = [now, outcome, err?.number ?? null, err?.message ?? null, err?.detail ?? null, startedAt, now, taskId, attempt];
  const logged = stmt(db, S.END_ATTEMPT).get(...end) as { command: string; started_at: number } | undefined;
  if (t.token_no !== null) releaseToken(db, t.queue, t.token_no, taskId, attempt);
  if (t.batch_id !== null && t.stage !== null) stageTimes(db, t.batch_id, t.stage, null, now);
  tally.task(t, 'running', to);
  // a suspended attempt (a durable handler's sleep or wait) neither succeeded nor failed
  if (outcome === 'suspended') return;
  tally.metric(now, outcome === 'succeeded' ? 'succeeded' : 'failed');
  const ended = outcome === 'succeeded' || outcome === 'cancelled' ? outcome : to === 'dead' ? 'dead' : 'failed';
  tally.historyEnded(now, t.queue, logged?.command ?? '?', ended, logged ? now - logged.started_at : null);
}

/** Apply settlements; false where the attempt no longer owns its task or its lease expired (nothing is written for it). */
function settleAttempts(db: Db, results: AttemptResult[], tally: Tally, now: number): { accepted: boolean[]; wake: boolean } {
  let wake = false;
  /** settled tasks whose children move (edges.ts), once for the whole settlement */
  const succeeded: number[] = [];
  const failed: number[] = [];
  const accepted = results.map((r) => {
    const s = r.settlement;
    // when it really began (a prefetched task, after its claim), then the fence: this attempt still owns its
    // task, and its lease has not expired
    const startedAt = r.startedAt ? r.startedAt.getTime() : null;
    const fence = [startedAt, now, r.taskId, r.workerId, r.attempt, now];
    let row: Ended | undefined;
    let to: string;
    let outcome: string;
    let err: ErrorInfo | null = null;
    switch (s.kind) {
      case 'succeeded':
        row = stmt(db, S.FINISH_SUCCEEDED).get(now, toJson(s.result), ...fence) as Ended | undefined;
        to = outcome = 'succeeded';
        break;
      case 'retry':
        err = s.error;
        row = stmt(db, S.FINISH_RETRY).get(
          s.runAfter.getTime(),
          err.number,
          err.message,
          err.detail,
          fingerprint(err.number, err.message),
          ...fence,
        ) as Ended | undefined;
        to = 'pending';
        outcome = s.outcome;
        if (s.runAfter.getTime() <= now) wake = true;
        break;
      case 'dead':
        err = s.error;
        row = stmt(db, S.FINISH_DEAD).get(now, err.number, err.message, err.detail, fingerprint(err.number, err.message), ...fence) as
          | Ended
          | undefined;
        to = 'dead';
        outcome = s.outcome;
        break;
      case 'suspended':
        row = stmt(db, S.FINISH_SUSPENDED).get(suspendedUntil(s.until), s.step.kind === 'sleep' ? 'sleep' : 'event', ...fence) as
          | Ended
          | undefined;
        to = 'waiting';
        outcome = 'suspended';
        break;
      default:
        err = s.error;
        row = stmt(db, S.FINISH_CANCELLED).get(now, ...fence) as Ended | undefined;
        to = outcome = 'cancelled';
    }
    if (!row) return false;
    endAttempt(db, row, r.taskId, r.attempt, outcome, err, to, tally, now, startedAt);
    // its step recorded; an event sent since the attempt began resumes it at once
    if (s.kind === 'suspended' && suspendAttempt(db, r.taskId, r.attempt, s.step, tally, now)) wake = true;
    // a freed token or a finished stage may let another task start, and so may a child made ready
    if (row.token_no !== null || row.batch_id !== null) wake = true;
    if (to === 'succeeded') succeeded.push(r.taskId);
    else if (to === 'dead' || to === 'cancelled') failed.push(r.taskId);
    return true;
  });
  if (parentsSucceeded(db, succeeded, tally)) wake = true;
  if (parentsFailed(db, failed, tally, now)) wake = true;
  return { accepted, wake };
}

/**
 * After a transaction's counts are flushed: a batch with `onFailure: abort` and a dead task cancels its
 * pending tasks of later stages; a released (or aborted) batch whose tasks are all terminal completes.
 */
export function settleBatches(db: Db, ids: Iterable<number>, tally: Tally, now: number): void {
  for (const id of ids) {
    const b = stmt(db, S.BATCH_POLICY).get(id) as { status: string; on_failure: string } | undefined;
    if (!b) continue;
    if (b.on_failure === 'abort' && (b.status === 'open' || b.status === 'released')) {
      const failed = stmt(db, S.FIRST_FAILED_STAGE).get(id) as { stage: number | null };
      if (failed.stage !== null) {
        const cancelled = stmt(db, S.CANCEL_LATER_STAGES).all(
          now,
          `batch ${id} aborted: a task of stage ${failed.stage} failed`,
          id,
          failed.stage,
        ) as { id: number; queue: string; batch_id: number; stage: number }[];
        for (const t of cancelled) tally.task(t, 'pending', 'cancelled');
        parentsFailed(
          db,
          cancelled.map((t) => t.id),
          tally,
          now,
        );
        stmt(db, S.ABORT_BATCH).run(id);
        tally.flush(db);
      }
    }
    const cur = stmt(db, BATCH_STATUS).get(id) as { status: string };
    if (cur.status === 'released' || cur.status === 'aborted') {
      const live = stmt(db, S.UNFINISHED_IN_BATCH).get(id) as { n: number };
      if (live.n === 0) stmt(db, S.COMPLETE_BATCH).run(now, id);
    }
  }
}
