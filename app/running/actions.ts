'use server';
// Server actions of the Running page: cancel a selection of running tasks at once.
import { z } from 'zod';
import { ConflictError, NotFoundError } from '@/lib/engine/errors';
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

/** Cancel each selected task (running: cooperative cancel requested); one `tasks.bulk_cancel` audit entry with the count. */
export async function cancelRunning(tokens: string[]): Promise<ActionResult<BulkCancelResult>> {
  return runAction(async () => {
    const list = [...new Set(parseWith(tokenList, tokens, 'tokens').map((t) => t.toLowerCase()))];
    const { readpast } = await getEngine();
    let cancelled = 0;
    let skipped = 0;
    for (const t of list) {
      try {
        await readpast.cancel(t);
        cancelled++;
      } catch (err) {
        if (err instanceof NotFoundError || err instanceof ConflictError) skipped++;
        else throw err;
      }
    }
    await readpast.audit.record('tasks.bulk_cancel', `tokens:${list.length}`, {
      before: { tokens: list.slice(0, 50) },
      after: { cancelled, skipped },
      count: cancelled,
    });
    return { cancelled, skipped };
  });
}
