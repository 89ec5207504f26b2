'use server';
// Server actions of the Tasks page and a task's detail: bulk actions (preview the exact count, then act),
// editing a task before a retry, and retrying or deleting a whole failure group. Each runs as the signed-in
// user (runAction: access checked, actor recorded in the audit trail, failures as a result value).
import { getEngine } from '@/lib/server/engine';
import { runAction, type ActionResult } from '@/lib/server/actions';
import type { RetryFailedResult } from '@/lib/engine/types';

/** What a bulk action would change: `count` tasks (of `matched` the selection names in any state). */
export async function previewBulk(request: unknown): Promise<ActionResult<{ action: string; count: number; matched: number }>> {
  return runAction(async () => {
    const { readpast } = await getEngine();
    return readpast.bulkPreview(request);
  });
}

export interface BulkDone {
  action: string;
  done: number;
  skipped: number;
  missing: number;
  /** of `skipped` (retry): the dedup key was held by a newer or unfinished task */
  dedupKeyHeld: number;
  expected: number | null;
  count: number;
  /** the server's clock as the action started (the dashboard's note on retried tasks) */
  at: string;
}

/** Apply a bulk action; `expected` (from previewBulk) is the count the operator confirmed. */
export async function runBulk(request: unknown): Promise<ActionResult<BulkDone>> {
  return runAction(async () => {
    const { readpast } = await getEngine();
    const at = new Date().toISOString();
    return { ...(await readpast.bulk(request)), at };
  });
}

/** Edit a task that is not running; `retry: true` saves and retries a dead or cancelled task in one step. */
export async function editTask(token: string, patch: unknown): Promise<ActionResult<{ result: string; at: string }>> {
  return runAction(async () => {
    const { readpast } = await getEngine();
    const at = new Date().toISOString();
    const r = await readpast.editTask(token, patch);
    return { result: r.result, at };
  });
}

/**
 * Retry or delete every dead task of a failure group (or any failure filter; none = all) through the one bulk
 * command; how many, and for a retry how many stayed dead because their dedup key is held.
 */
export async function actOnFailures(
  action: 'retry' | 'delete',
  filter: unknown,
): Promise<ActionResult<{ count: number; skipped?: RetryFailedResult['skipped']; at: string }>> {
  return runAction(async () => {
    const { readpast } = await getEngine();
    const at = new Date().toISOString();
    const r = await readpast.bulk({ action, failures: filter ?? {} });
    if (action === 'delete') return { count: r.done, at };
    return { count: r.done, skipped: { dedupKeyHeld: r.dedupKeyHeld }, at };
  });
}
