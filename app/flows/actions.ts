'use server';
// Server actions of a flow's page: cancel every unfinished node, retry the failed ones. Each runs as the
// signed-in user (runAction: access checked, actor recorded in the audit trail, failures as a result value).
import { getEngine } from '@/lib/server/engine';
import { runAction, type ActionResult } from '@/lib/server/actions';

/** Cancel the flow's waiting and pending nodes (their children's policies apply); running ones are asked to stop. */
export async function cancelFlow(id: number): Promise<ActionResult<{ cancelled: number; cancelRequested: number }>> {
  return runAction(async () => {
    const { readpast } = await getEngine();
    return readpast.cancelFlow(id);
  });
}

/** Retry the flow's dead nodes and those cancelled other than by a parent; the children they cancelled are re-armed. */
export async function retryFlow(id: number): Promise<ActionResult<{ retried: number }>> {
  return runAction(async () => {
    const { readpast } = await getEngine();
    return readpast.retryFlow(id);
  });
}
