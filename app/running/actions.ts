'use server';
// Server actions of the Running page: cancel a selection of running tasks at once.
import { z } from 'zod';
import { parseWith, token as tokenSchema } from '@/lib/engine/validation';
import { getEngine } from '@/lib/server/engine';
import { runAction, type ActionResult } from '@/lib/server/actions';

/** at most this many tasks in one bulk cancel (the Running page lists what runs: a few hundred at most) */
const MAX_RUNNING_CANCEL = 1000;

const tokenList = z
  .array(tokenSchema)
  .min(1, 'select at least one task')
  .max(MAX_RUNNING_CANCEL, `at most ${MAX_RUNNING_CANCEL} tasks at once`);

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
    const list = [...new Set(parseWith(tokenList, tokens, 'tokens').map((t) => t.toLowerCase()))];
    const { readpast } = await getEngine();
    const r = await readpast.bulk({ action: 'cancel', tokens: list });
    return { cancelled: r.done, skipped: list.length - r.done };
  });
}
