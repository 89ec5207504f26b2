// Alert rules behind the front door: validated create / edit / delete / test-send over the store's ports,
// the history of fired alerts, and their JSON views (`alert-views.ts`; requests are checked in `alert-requests.ts`).
// Readpast (readpast.ts) exposes an instance as `readpast.alerts`; every change is audited (alert.*).
// A webhook URL that is saved is checked against the webhook policy (lib/engine/webhook-guard.ts): an address
// that is not public, or a name resolving to one, is refused (400, field url) unless READPAST_WEBHOOK_ALLOW
// allows it; a name that does not resolve is refused as well. Each delivery checks again when it connects.
import type { AlertRule, FiredAlert } from '../engine/alert-types';
import { testFiring } from '../engine/alerts';
import { ConflictError, NotFoundError, ValidationError } from '../engine/errors';
import type { Store } from '../engine/ports';
import { parseWith } from '../engine/validation';
import { checkWebhookUrl, WebhookRefusedError, type WebhookPolicy } from '../engine/webhook-guard';
import { alertIdParam, asRequest, firingsQuery, validateAlertRule } from './alert-requests';
import {
  alertFiringJson,
  alertRuleJson,
  type AlertFiringJson,
  type AlertFiringsJson,
  type AlertRuleJson,
  type AlertTestJson,
} from './alert-views';
import { currentActor, type Audit } from './audit';

export {
  alertIdParam,
  alertRuleRequest,
  type AlertRuleRequest,
  DEFAULT_FIRINGS_LISTED,
  MAX_DEDUP_MS,
  MAX_FIRINGS_LISTED,
  MAX_SECRET_LENGTH,
  MAX_THRESHOLD_MS,
  MAX_URL_LENGTH,
  validateAlertRule,
} from './alert-requests';
export * from './alert-views';

/** firings shown with one rule */
const RULE_FIRINGS_SHOWN = 20;

/** what the audit trail keeps of a rule (the secret masked) */
function audited(r: AlertRule): Record<string, unknown> {
  const j = alertRuleJson(r);
  return {
    kind: j.kind,
    queue: j.queue,
    command: j.command,
    schedule: j.schedule,
    thresholdMs: j.thresholdMs,
    count: j.count,
    url: j.url,
    secret: j.secret,
    format: j.format,
    dedupMs: j.dedupMs,
    enabled: j.enabled,
  };
}

// ---- commands and reads -------------------------------------------------------------------

export class Alerts {
  constructor(
    private readonly store: Pick<Store, 'commands' | 'reads'>,
    private readonly audit: Audit,
    private readonly webhooks: WebhookPolicy,
  ) {}

  /** refuse a webhook the policy refuses (a 400 naming url, saying why and how to allow it) */
  private async checkUrl(url: string): Promise<void> {
    try {
      await checkWebhookUrl(url, this.webhooks);
    } catch (err) {
      if (err instanceof WebhookRefusedError) throw new ValidationError('url', err.message);
      throw err;
    }
  }

  private async rule(id: unknown): Promise<AlertRule> {
    const n = alertIdParam(id);
    const r = await this.store.reads.getAlertRule(n);
    if (!r) throw new NotFoundError(`no alert rule ${n}`);
    return r;
  }

  async list(): Promise<{ rules: AlertRuleJson[] }> {
    return { rules: (await this.store.reads.listAlertRules()).map(alertRuleJson) };
  }

  /** one rule with its newest firings */
  async show(id: unknown): Promise<AlertRuleJson & { firings: AlertFiringJson[] }> {
    const r = await this.rule(id);
    const page = await this.store.reads.listAlertFirings({ ruleId: r.id, limit: RULE_FIRINGS_SHOWN });
    return { ...alertRuleJson(r), firings: page.items.map(alertFiringJson) };
  }

  async create(raw: unknown): Promise<AlertRuleJson> {
    const input = validateAlertRule(raw);
    await this.checkUrl(input.url);
    const audit = this.audit.of((r: AlertRule | 'exists') =>
      r === 'exists' ? null : { action: 'alert.create', target: r.name, after: audited(r), count: 1 },
    );
    const r = await this.store.commands.createAlertRule(input, currentActor().name, audit);
    if (r === 'exists') throw new ConflictError(`an alert rule named ${input.name} exists`);
    return alertRuleJson(r);
  }

  /**
   * change some fields; `url` or `secret` left out keeps it, a null secret removes it. A URL is checked when it
   * changes (a rule saved before the policy can still be disabled or edited; its deliveries are refused).
   */
  async update(id: unknown, patch: unknown): Promise<AlertRuleJson> {
    if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) throw new ValidationError('body', 'must be a JSON object');
    const before = await this.rule(id);
    const input = validateAlertRule({ ...asRequest(before), ...patch });
    if (input.url !== before.url) await this.checkUrl(input.url);
    const audit = this.audit.of((r: AlertRule | 'not_found' | 'exists') =>
      typeof r === 'string' ? null : { action: 'alert.update', target: r.name, before: audited(before), after: audited(r), count: 1 },
    );
    const r = await this.store.commands.updateAlertRule(before.id, input, currentActor().name, audit);
    if (r === 'not_found') throw new NotFoundError(`no alert rule ${before.id}`);
    if (r === 'exists') throw new ConflictError(`an alert rule named ${input.name} exists`);
    return alertRuleJson(r);
  }

  async remove(id: unknown): Promise<{ deleted: true; id: number }> {
    const r = await this.rule(id);
    const audit = this.audit.of((d: 'deleted' | 'not_found') =>
      d === 'deleted' ? { action: 'alert.delete', target: r.name, before: audited(r), count: 1 } : null,
    );
    if ((await this.store.commands.deleteAlertRule(r.id, audit)) === 'not_found') throw new NotFoundError(`no alert rule ${r.id}`);
    return { deleted: true, id: r.id };
  }

  /** send a test delivery now (also while the rule is disabled): a firing marked test, its delivery task queued */
  async test(id: unknown): Promise<AlertTestJson> {
    const r = await this.rule(id);
    const audit = this.audit.of((fired: FiredAlert[]) =>
      fired[0] ? { action: 'alert.test', target: r.name, after: { token: fired[0].token }, count: 1 } : null,
    );
    const [fired] = await this.store.commands.writeAlerts({ firings: [testFiring(r)], cursors: [] }, audit);
    if (!fired) throw new ConflictError('the test delivery was not recorded');
    const page = await this.store.reads.listAlertFirings({ ruleId: r.id, limit: 5 });
    const firing = page.items.find((f) => f.id === fired.firingId) ?? null;
    return { firing: firing && alertFiringJson(firing), token: fired.token };
  }

  /** fired alerts newest first (of one rule with `rule`), keyset-paged: pass `next` as `cursor` */
  async firings(query: unknown = {}): Promise<AlertFiringsJson> {
    const q = parseWith(firingsQuery, query ?? {});
    const page = await this.store.reads.listAlertFirings({ cursor: q.cursor, limit: q.limit, ruleId: q.rule });
    return { items: page.items.map(alertFiringJson), next: page.nextCursor };
  }
}
