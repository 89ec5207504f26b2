// Ending attempts: a worker's settlements (fenced on task, worker and attempt) and the rescue of
// attempts whose lease expired. Both release the attempt's concurrency token.
import type { AttemptResult, ErrorInfo, RescueResult } from '../../lib/engine/types';
import { stageTimes } from './batches';
import type { Db } from './connection';
import { toJson } from './rows';
import { stmt, type Tally, type TaskKey } from './tally';
import { releaseToken } from './tokens';

type Ended = TaskKey & { token_no: number | null };
const FENCE = "WHERE id = ? AND worker_id = ? AND attempts = ? AND status = 'running' RETURNING queue, batch_id, stage, token_no";

function endAttempt(db: Db, t: Ended, taskId: number, attempt: number, outcome: string, err: ErrorInfo | null, to: string, tally: Tally, now: number) {
  stmt(db, `UPDATE ExecutionLog SET ended_at = ?, outcome = ?, error_number = ?, error_message = ?, error_detail = ?
      WHERE task_id = ? AND attempt = ?`).run(now, outcome, err?.number ?? null, err?.message ?? null, err?.detail ?? null, taskId, attempt);
  if (t.token_no !== null) releaseToken(db, t.queue, t.token_no, taskId, attempt);
  if (t.batch_id !== null && t.stage !== null) stageTimes(db, t.batch_id, t.stage, null, now);
  tally.task(t, 'running', to);
  tally.metric(now, outcome === 'succeeded' ? 'succeeded' : 'failed');
}

/** Apply settlements; false where the attempt no longer owns its task (nothing is written for it). */
export function finish(db: Db, results: AttemptResult[], tally: Tally, now: number): { accepted: boolean[]; wake: boolean } {
  let wake = false;
  const accepted = results.map((r) => {
    const s = r.settlement;
    let row: Ended | undefined;
    let to: string;
    let outcome: string;
    let err: ErrorInfo | null = null;
    switch (s.kind) {
      case 'succeeded':
        row = stmt(db, `UPDATE Tasks SET status = 'succeeded', finished_at = ?, result = ?, lease_until = NULL ${FENCE}`)
          .get(now, toJson(s.result), r.taskId, r.workerId, r.attempt) as Ended | undefined;
        to = outcome = 'succeeded';
        break;
      case 'retry':
        err = s.error;
        row = stmt(db, `UPDATE Tasks SET status = 'pending', run_after = ?, lease_until = NULL, error_number = ?,
            error_message = ?, error_detail = ? ${FENCE}`)
          .get(s.runAfter.getTime(), err.number, err.message, err.detail, r.taskId, r.workerId, r.attempt) as Ended | undefined;
        to = 'pending';
        outcome = s.outcome;
        if (s.runAfter.getTime() <= now) wake = true;
        break;
      case 'dead':
        err = s.error;
        row = stmt(db, `UPDATE Tasks SET status = 'dead', finished_at = ?, lease_until = NULL, error_number = ?,
            error_message = ?, error_detail = ? ${FENCE}`)
          .get(now, err.number, err.message, err.detail, r.taskId, r.workerId, r.attempt) as Ended | undefined;
        to = 'dead';
        outcome = s.outcome;
        break;
      default:
        err = s.error;
        row = stmt(db, `UPDATE Tasks SET status = 'cancelled', finished_at = ?, lease_until = NULL ${FENCE}`)
          .get(now, r.taskId, r.workerId, r.attempt) as Ended | undefined;
        to = outcome = 'cancelled';
    }
    if (!row) return false;
    endAttempt(db, row, r.taskId, r.attempt, outcome, err, to, tally, now);
    // a freed token or a finished stage may let another task start
    if (row.token_no !== null || row.batch_id !== null) wake = true;
    return true;
  });
  return { accepted, wake };
}

/** Expired leases: the attempt is abandoned; the task goes back to pending, or to dead without attempts left. */
export function rescueExpired(db: Db, tally: Tally, now: number): RescueResult {
  const expired = stmt(db, `SELECT t.id, t.queue, t.batch_id, t.stage, t.token_no, t.attempts, t.max_attempts, t.worker_id
      FROM ExecutionLog l CROSS JOIN Tasks t ON t.id = l.task_id AND t.attempts = l.attempt
      WHERE l.ended_at IS NULL AND t.status = 'running' AND t.lease_until < ?`).all(now) as
    (Ended & { id: number; attempts: number; max_attempts: number; worker_id: string | null })[];
  const res = { retried: 0, dead: 0 };
  for (const t of expired) {
    const message = `lease expired: worker ${t.worker_id ?? '?'} stopped renewing it (crashed, killed or cut off)`;
    const dead = t.attempts >= t.max_attempts;
    stmt(db, `UPDATE Tasks SET status = ?, run_after = CASE WHEN ? THEN run_after ELSE ? END, finished_at = CASE WHEN ? THEN ? ELSE NULL END,
        lease_until = NULL, error_number = NULL, error_message = ?, error_detail = NULL WHERE id = ?`)
      .run(dead ? 'dead' : 'pending', dead ? 1 : 0, now, dead ? 1 : 0, now, message, t.id);
    endAttempt(db, t, t.id, t.attempts, 'abandoned', { number: null, message, detail: null }, dead ? 'dead' : 'pending', tally, now);
    if (dead) res.dead++; else res.retried++;
  }
  // an attempt left open though its task moved on (should not happen; keeps ExecutionStatus true)
  stmt(db, `UPDATE ExecutionLog SET ended_at = ?, outcome = 'abandoned', error_message = 'attempt no longer owns its task'
      WHERE ended_at IS NULL AND NOT EXISTS (SELECT 1 FROM Tasks t WHERE t.id = ExecutionLog.task_id AND t.status = 'running'
        AND t.attempts = ExecutionLog.attempt)`).run(now);
  return res;
}
