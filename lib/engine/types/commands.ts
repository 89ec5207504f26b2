// What operator commands take and answer: edits, bulk actions, retries of the failed, pruning.
import type { TaskView } from './tasks';

export interface PruneResult {
  tasks: number;
  attempts: number;
}

/** What an edit may change on a task that is not running (validated like enqueue). */
export interface TaskPatch {
  payload?: unknown;
  queue?: string;
  priority?: number;
  runAt?: Date;
  maxAttempts?: number;
}

export type EditTaskResult =
  | { result: 'edited' | 'retried'; before: TaskView; after: TaskView }
  | { result: 'not_found' | 'conflict' | 'running' };

/** What a bulk command does to each task it is given. */
export type BulkAction = 'retry' | 'cancel' | 'delete' | 'run_now' | 'priority';

/** How a bulk command ended, per task: done, skipped (its state does not allow it), or not found. */
export interface BulkOutcome {
  done: number;
  skipped: number;
  missing: number;
  /** of `skipped` (retry): tasks whose dedup key an unfinished task holds, or a newer task of the selection took */
  dedupKeyHeld: number;
}

/**
 * What `retryFailed` did. Of several dead tasks sharing a dedup key only the newest comes back (a key is
 * held by one unfinished task at most); the others, and every task whose key an unfinished task already
 * holds, stay dead and are counted in `skipped.dedupKeyHeld`.
 */
export interface RetryFailedResult {
  retried: number;
  skipped: { dedupKeyHeld: number };
}
