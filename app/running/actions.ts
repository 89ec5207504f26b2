'use server';
// Server actions of the Running page: cancel a selection of running tasks at once.
import { getEngine } from '@/lib/server/engine';
import { runAction, type ActionResult } from '@/lib/server/actions';

export interface BulkCancelResult {
  /** tasks asked to stop (running) or cancelled (pending meanwhile) */
  cancelled: number;
  /** tasks that finished (or went) before the cancel reached them */
  skipped: number;
}

/**
 * Cancel the selected tasks through the one bulk command (running: cooperative cancel requested): one
 * `tasks.bulk_cancel` audit row, written in the same transaction as the cancels.
 */
export async function cancelRunning(tokens: string[]): Promise<ActionResult<BulkCancelResult>> {
  return runAction(async () => {
    const { readpast } = await getEngine();
    const r = await readpast.bulk({ action: 'cancel', tokens });
    // validated by the bulk command: distinct tokens (any case) are the tasks selected
    const selected = new Set(tokens.map((t) => t.toLowerCase())).size;
    return { cancelled: r.done, skipped: selected - r.done };
  });
}
