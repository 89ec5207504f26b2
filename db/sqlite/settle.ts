// Ending attempts: a worker's settlements (fenced on task, worker and attempt), each releasing the
// attempt's concurrency token; then, before the transaction commits, the batches whose tasks moved are
// settled — aborted on a failure where their policy says so, completed once all their tasks are terminal.
// A settled task moves its children (edges.ts): a success readies them, dead or cancelled applies their policies.
// A task claimed ahead (claim.ts) starts here: its start is recorded with its end (one log row written whole), or
// alone while it still runs (`started`); one never started is given back (`given_back`), with nothing counted.
import { fingerprint } from '../../lib/engine/fingerprint';
import type { AttemptResult, AttemptStart, ErrorInfo } from '../../lib/engine/types';
import { stageTimes } from './batches';
import type { Db, Shared } from './connection';
import { parentsFailed, parentsSucceeded } from './edges';
import { suspendAttempt } from './events';
import { suspendedUntil } from './steps';
import { releaseToken } from './queues';
import { toJson } from './rows';
import { BATCH_STATUS } from './sql/batches';
import { LOG_ATTEMPT } from './sql/claim';
import * as S from './sql/settle';
import { stmt } from './stmt';
import type { Tally, TaskKey } from './tally';

/** What an ended attempt held. */
export type Ended = TaskKey & { token_no: number | null };
/** What a settled attempt held, and what its log row needs. */
type Settled = Ended & { kind: string; command: string };

/** Settle attempts; false where the attempt no longer owns its task or its lease expired. */
export async function finish(shared: Shared, results: AttemptResult[]): Promise<boolean[]> {
  if (results.length === 0) return [];
  const r = await shared.tx((tally, now) => settleAttempts(shared.db, results, tally, now));
  if (r.wake) shared.wake();
  return r.accepted;
}

/** How an attempt's end counts in the history. */
function historyOutcome(outcome: string, to: string) {
  return outcome === 'succeeded' || outcome === 'cancelled' ? outcome : to === 'dead' ? 'dead' : 'failed';
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
): void {
  const end = [now, outcome, err?.number ?? null, err?.message ?? null, err?.detail ?? null, taskId, attempt];
  const logged = stmt(db, S.END_ATTEMPT).get(...end) as { command: string; started_at: number } | undefined;
  if (t.token_no !== null) releaseToken(db, t.queue, t.token_no, taskId, attempt);
  if (t.batch_id !== null && t.stage !== null) stageTimes(db, t.batch_id, t.stage, null, now);
  tally.task(t, 'running', to);
  // a suspended attempt (a durable handler's sleep or wait) neither succeeded nor failed
  if (outcome === 'suspended') return;
  tally.metric(now, outcome === 'succeeded' ? 'succeeded' : 'failed');
  tally.historyEnded(now, t.queue, logged?.command ?? '?', historyOutcome(outcome, to), logged ? now - logged.started_at : null);
}

/** The log row of a claimed task's attempt up to its start (task_id … started_at, as LOG_ATTEMPT binds them). */
function logRow(r: AttemptResult, t: Settled, start: AttemptStart, at: number) {
  return [r.taskId, r.attempt, t.queue, t.kind, t.command, r.workerId, start.session, t.token_no, t.batch_id, t.stage, at] as const;
}

/** A claimed task's attempt starts at `at` (its task row already written): counted from its real start. */
function started(db: Db, t: Settled, start: AttemptStart, at: number, tally: Tally): void {
  const latency = at - start.due.getTime();
  tally.started(at, latency);
  tally.historyStarted(at, t.queue, t.command, latency);
  if (t.batch_id !== null && t.stage !== null) stageTimes(db, t.batch_id, t.stage, at, null);
}

/** The whole attempt of a claimed task that ended before its start was recorded: one log row, its token released. */
function endClaimedAttempt(
  db: Db,
  t: Settled,
  r: AttemptResult,
  start: AttemptStart,
  outcome: string,
  err: ErrorInfo | null,
  to: string,
  tally: Tally,
  now: number,
): void {
  const at = Math.min(start.at.getTime(), now);
  stmt(db, S.LOG_ENDED_ATTEMPT).run(
    ...logRow(r, t, start, at),
    now,
    outcome,
    err?.number ?? null,
    err?.message ?? null,
    err?.detail ?? null,
  );
  if (t.token_no !== null) releaseToken(db, t.queue, t.token_no, r.taskId, r.attempt);
  started(db, t, start, at, tally);
  if (t.batch_id !== null && t.stage !== null) stageTimes(db, t.batch_id, t.stage, null, now);
  tally.task(t, 'claimed', to);
  // a suspended attempt (a durable handler's sleep or wait) neither succeeded nor failed
  if (outcome === 'suspended') return;
  tally.metric(now, outcome === 'succeeded' ? 'succeeded' : 'failed');
  tally.historyEnded(now, t.queue, t.command, historyOutcome(outcome, to), now - at);
}

/** A claimed task's attempt that still runs: claimed → running, its log row opened at its real start. */
function startClaimed(db: Db, r: AttemptResult, start: AttemptStart, tally: Tally, now: number): boolean {
  const at = Math.min(start.at.getTime(), now);
  const t = stmt(db, S.START_CLAIMED).get(r.workerId, r.attempt, at, now, r.taskId, start.claimer, 'claimed', r.attempt - 1, now) as
    | Settled
    | undefined;
  if (!t) return false;
  stmt(db, LOG_ATTEMPT).run(...logRow(r, t, start, at));
  if (t.token_no !== null) stmt(db, S.TOKEN_RUNNER).run(r.workerId, t.queue, t.token_no, r.taskId);
  started(db, t, start, at, tally);
  tally.task(t, 'claimed', 'running');
  return true;
}

/**
 * Give a task back to pending, due as it was, nothing counted: one claimed ahead and never started, or an attempt
 * its claim started that never ran (undone: its attempt count back, its log row removed). Its token is released.
 */
function giveBack(db: Db, r: AttemptResult, tally: Tally, now: number): boolean {
  let from = 'claimed';
  let t = stmt(db, S.GIVE_BACK_CLAIMED).get(r.taskId, r.workerId, r.attempt, now) as Ended | undefined;
  if (!t) {
    from = 'running';
    t = stmt(db, S.GIVE_BACK_STARTED).get(r.taskId, r.workerId, r.attempt, now) as Ended | undefined;
    if (!t) return false;
    stmt(db, S.LOG_UNDO).run(r.taskId, r.attempt);
  }
  if (t.token_no !== null) releaseToken(db, t.queue, t.token_no, r.taskId, r.attempt);
  tally.task(t, from, 'pending');
  return true;
}

/** Apply settlements; false where the attempt no longer owns its task or its lease expired (nothing is written for it). */
function settleAttempts(db: Db, results: AttemptResult[], tally: Tally, now: number): { accepted: boolean[]; wake: boolean } {
  let wake = false;
  /** settled tasks whose children move (edges.ts), once for the whole settlement */
  const succeeded: number[] = [];
  const failed: number[] = [];
  const accepted = results.map((r) => {
    const s = r.settlement;
    if (s.kind === 'given_back') {
      const ok = giveBack(db, r, tally, now);
      if (ok) wake = true;
      return ok;
    }
    const start = r.start;
    if (s.kind === 'started') return start !== undefined && startClaimed(db, r, start, tally, now);
    // the attempt (its worker and number; a claimed task's start), then the fence: a running attempt still owns its
    // task — or, its start going with its end, the task is still claimed by its claimer —, its lease not expired
    const attempt = [r.workerId, r.attempt, start ? start.at.getTime() : null, now];
    const fence = start ? [r.taskId, start.claimer, 'claimed', r.attempt - 1, now] : [r.taskId, r.workerId, 'running', r.attempt, now];
    let row: Settled | undefined;
    let to: string;
    let outcome: string;
    let err: ErrorInfo | null = null;
    switch (s.kind) {
      case 'succeeded':
        row = stmt(db, S.FINISH_SUCCEEDED).get(now, toJson(s.result), ...attempt, ...fence) as Settled | undefined;
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
          ...attempt,
          ...fence,
        ) as Settled | undefined;
        to = 'pending';
        outcome = s.outcome;
        if (s.runAfter.getTime() <= now) wake = true;
        break;
      case 'dead':
        err = s.error;
        row = stmt(db, S.FINISH_DEAD).get(
          now,
          err.number,
          err.message,
          err.detail,
          fingerprint(err.number, err.message),
          ...attempt,
          ...fence,
        ) as Settled | undefined;
        to = 'dead';
        outcome = s.outcome;
        break;
      case 'suspended':
        row = stmt(db, S.FINISH_SUSPENDED).get(
          suspendedUntil(s.until),
          s.step.kind === 'sleep' ? 'sleep' : 'event',
          ...attempt,
          ...fence,
        ) as Settled | undefined;
        to = 'waiting';
        outcome = 'suspended';
        break;
      default:
        err = s.error;
        row = stmt(db, S.FINISH_CANCELLED).get(now, ...attempt, ...fence) as Settled | undefined;
        to = outcome = 'cancelled';
    }
    if (!row) return false;
    if (start) endClaimedAttempt(db, row, r, start, outcome, err, to, tally, now);
    else endAttempt(db, row, r.taskId, r.attempt, outcome, err, to, tally, now);
    // its step recorded; an event sent since the attempt began resumes it at once
    if (s.kind === 'suspended' && suspendAttempt(db, r.taskId, r.attempt, s.step, tally, now)) wake = true;
    if (r.trace) {
      stmt(db, S.LOG_ATTEMPT_TRACE).run(r.trace, r.taskId, r.attempt);
      stmt(db, S.TASK_ATTEMPT_TRACE).run(r.trace, r.taskId);
    }
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
