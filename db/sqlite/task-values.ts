// A task's row values as the producers write them: to Tasks (enqueue.ts, TASK_COLUMNS) or to the intake (intake.ts).
import { taskKey } from '../../lib/engine/keys';
import type { EnqueueInput } from '../../lib/engine/types';
import type { QueueDefaults } from './queues';
import { toJson } from './rows';

/**
 * A task's INSERT values in TASK_COLUMNS order (sql/enqueue.ts), its queue's defaults applied and its concurrency key
 * given or derived from the payload by the queue's keyFrom (refused there when too long).
 */
export function taskValues(
  token: string,
  queue: string,
  input: EnqueueInput,
  q: QueueDefaults,
  now: number,
  batchId: number | null,
  stage: number | null,
): unknown[] {
  return [
    token,
    queue,
    input.kind,
    input.command,
    toJson(input.payload),
    input.priority ?? 0,
    input.runAt ? input.runAt.getTime() : now,
    input.maxAttempts ?? q.max_attempts,
    input.timeoutMs === undefined ? q.timeout_ms : input.timeoutMs,
    input.dedupKey ?? null,
    // given, else derived from the payload by the queue's keyFrom (a trigger gives the key its ConcurrencyKeys row)
    taskKey(input.concurrencyKey, input.payload, q.key_from),
    input.caller ?? null,
    batchId,
    stage,
    now,
    input.trace?.traceparent ?? null,
    input.trace?.tracestate ?? null,
  ];
}

/** The intake's values (sql/intake.ts APPEND_INTAKE) of a task's TASK_COLUMNS values: all but dedup_key, batch_id and stage. */
export function intakeValues(v: readonly unknown[]): unknown[] {
  return [v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[10], v[11], v[14], v[15], v[16]];
}
