// The claim rules of lib/engine/claim-rules.ts in SQLite: one fragment per rule, the exact text that
// implements it in the claim's SQL (sql/claim.ts is composed of these; claim-rules.test.ts checks that
// every rule has one and that the claim's SQL contains it). Two rules are partly in claim.ts's TypeScript:
// a paused queue and a full limit put the queue on the claim's excluded list (capacity()).
import { LIVE_BATCH, type ClaimRuleName } from '../../lib/engine/claim-rules';

export const CLAIM_RULE_SQL = {
  pending: "t.status = 'pending'",
  due: 't.run_after <= @now',
  in_queue_filter: '(@queues IS NULL OR t.queue IN (SELECT value FROM json_each(@queues)))',
  // queues that fail it are read out and excluded
  queue_not_paused: 'paused = 0',
  // a queue's held tokens, compared with its limit in capacity(): running tasks with a live lease (queue, now)
  under_queue_limit: "SELECT COUNT(*) AS n FROM Tasks WHERE queue = ? AND status = 'running' AND lease_until >= ?",
  // a lane's tasks are those of a row of Batches
  batch_exists: 't.batch_id = x.id',
  batch_live: `b.status IN (${LIVE_BATCH.map((s) => `'${s}'`).join(', ')})`,
  stage_active: '(SELECT MIN(s.stage) FROM BatchStages s WHERE s.batch_id = b.id AND s.pending + s.running > 0)',
  not_after_failed_stage: "NOT (x.on_failure = 'abort' AND x.failed_stage IS NOT NULL AND x.stage > x.failed_stage)",
  under_batch_max_parallel: '(x.max_parallel IS NULL OR x.running < x.max_parallel)',
} as const satisfies Record<ClaimRuleName, string>;

/**
 * not_after_failed_stage for one task of stage `stage` of batch `batch` (SQL expressions), true when it
 * fails: a stage after one with a dead task, in a batch that aborts on failure. The claim never starts such
 * a task, so retry and bulk retry refuse it (sql/operators.ts).
 */
export const pastFailedStage = (batch: string, stage: string) => `EXISTS (SELECT 1 FROM Batches b
        JOIN BatchStages s ON s.batch_id = b.id WHERE b.id = ${batch} AND b.on_failure = 'abort' AND s.dead > 0 AND s.stage < ${stage})`;
