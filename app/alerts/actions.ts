'use server';
// Server actions of the Alerts page: create / edit / enable / delete a rule and send a test delivery,
// each as the signed-in user (audited: alert.create|update|delete|test), refused to viewers.
import type { AlertRuleJson, AlertTestJson } from '@/lib/api/alerts';
import { runAction, type ActionResult } from '@/lib/server/actions';
import { getEngine } from '@/lib/server/engine';

/** a new rule (`id` null) or a change of rule `id` */
export async function saveAlertRule(id: number | null, input: unknown): Promise<ActionResult<{ rule: AlertRuleJson }>> {
  return runAction(async () => {
    const { readpast } = await getEngine();
    return { rule: id === null ? await readpast.alerts.create(input) : await readpast.alerts.update(id, input) };
  });
}

export async function setAlertEnabled(id: number, enabled: boolean): Promise<ActionResult<{ rule: AlertRuleJson }>> {
  return runAction(async () => {
    const { readpast } = await getEngine();
    return { rule: await readpast.alerts.update(id, { enabled: enabled === true }) };
  });
}

export async function deleteAlertRule(id: number): Promise<ActionResult<{ id: number }>> {
  return runAction(async () => {
    const { readpast } = await getEngine();
    return { id: (await readpast.alerts.remove(id)).id };
  });
}

export async function testAlertRule(id: number): Promise<ActionResult<AlertTestJson>> {
  return runAction(async () => {
    const { readpast } = await getEngine();
    return readpast.alerts.test(id);
  });
}
