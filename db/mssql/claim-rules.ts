// The claim rules of lib/engine/claim-rules.ts in T-SQL: one fragment per rule, the exact text that
// implements it in the claim (sql/claim.ts is composed of these; claim-rules.test.ts checks that every
// rule has one and that the claim contains it). The claim runs as the installed procedure readpast.Claim_v17,
// whose text is pinned (hot-procedures.test.ts): a fragment's text may change only with a new version.
// Each round checks the queue rules again under the queue's lock (@paused, @held) and the batch rules
// under the batch's (the lane's re-check repeats the batch fragments).
import { LIVE_BATCH, type ClaimRuleName } from '../../lib/engine/claim-rules';

export const CLAIM_RULE_SQL = {
  pending: "t.status = 'pending'",
  due: 't.run_after <= @now',
  in_queue_filter: '(@all_queues = 1 OR q.name IN (SELECT w.queue FROM @wanted AS w))',
  queue_not_paused: 'q.paused = 0',
  under_queue_limit: `(q.concurrency_limit IS NULL OR q.concurrency_limit > (
      SELECT COUNT(*) FROM readpast.Tasks AS t WITH (READPAST, READCOMMITTEDLOCK)
      WHERE t.status = 'running' AND t.queue = q.name AND t.lease_until >= @now))`,
  // a lane's tasks are those of a row of Batches
  batch_exists: 't.batch_id = b.id',
  batch_live: `b.status IN (${LIVE_BATCH.map((s) => `'${s}'`).join(', ')})`,
  stage_active: 'MIN(CASE WHEN s.pending + s.running > 0 THEN s.stage END)',
  not_after_failed_stage: "NOT (b.on_failure = 'abort' AND st.failed_stage IS NOT NULL AND st.stage > st.failed_stage)",
  under_batch_max_parallel: '(b.max_parallel IS NULL OR st.running < b.max_parallel)',
} as const satisfies Record<ClaimRuleName, string>;

/**
 * not_after_failed_stage for one task `t`, true when it fails: a stage after one with a dead task, in a
 * batch that aborts on failure. The claim never starts such a task, so retry and bulk retry refuse it
 * (sql/operators.ts, sql/bulk.ts, sql/callers.ts: installed procedures too, so its text is pinned as well).
 */
export const PAST_FAILED_STAGE = `t.batch_id IS NOT NULL AND EXISTS (SELECT 1 FROM readpast.Batches AS b
      JOIN readpast.BatchStages AS s ON s.batch_id = b.id
      WHERE b.id = t.batch_id AND b.on_failure = 'abort' AND s.dead > 0 AND s.stage < t.stage)`;
