// Alert rules behind the front door: validated create / edit / delete / test-send over the store's ports,
// the history of fired alerts, and their JSON views (a secret is never shown in full: `••••` + its last 4).
// Readpast (readpast.ts) exposes an instance as `readpast.alerts`; every change is audited (alert.*).
// A webhook URL that is saved is checked against the webhook policy (lib/engine/webhook-guard.ts): an address
// that is not public, or a name resolving to one, is refused (400, field url) unless READPAST_WEBHOOK_ALLOW
// allows it; a name that does not resolve is refused as well. Each delivery checks again when it connects.
import { z } from 'zod';
import {
  ALERT_FORMATS,
  ALERT_KIND_INFO,
  ALERT_KINDS,
  DEFAULT_DEDUP_MS,
  MAX_STREAK,
  type AlertFiring,
  type AlertFormat,
  type AlertKind,
  type AlertRule,
  type FiredAlert,
  type AlertRuleInput,
} from '../engine/alert-types';
import { maskWebhookUrl } from '../engine/alert-delivery';
import { testFiring } from '../engine/alerts';
import { ConflictError, NotFoundError, ValidationError } from '../engine/errors';
import { MAX_HANDLER_NAME_LENGTH } from '../engine/limits';
import type { Store } from '../engine/ports';
import { parseWith, queueName } from '../engine/validation';
import { checkWebhookUrl, WebhookRefusedError, type WebhookPolicy } from '../engine/webhook-guard';
import { currentActor, type Audit } from './audit';

export const MAX_URL_LENGTH = 2000;
export const MAX_SECRET_LENGTH = 400;
export const MAX_DEDUP_MS = 7 * 24 * 3600_000;
export const MAX_THRESHOLD_MS = 30 * 24 * 3600_000;
export const DEFAULT_FIRINGS_LISTED = 50;
export const MAX_FIRINGS_LISTED = 500;
/** firings shown with one rule */
const RULE_FIRINGS_SHOWN = 20;

// ---- JSON views ---------------------------------------------------------------------------

export interface AlertRuleJson {
  id: number;
  name: string;
  kind: AlertKind;
  /** the kind in words */
  kindLabel: string;
  queue: string | null;
  command: string | null;
  schedule: string | null;
  thresholdMs: number | null;
  count: number | null;
  /** masked (maskWebhookUrl): scheme, host and the last 4 characters — the rest of a webhook URL is a credential */
  url: string;
  /** `••••` and the last 4 characters, or null without a secret */
  secret: string | null;
  format: AlertFormat;
  dedupMs: number;
  enabled: boolean;
  createdBy: string;
  createdAt: string;
  updatedBy: string;
  updatedAt: string;
}

export interface AlertFiringJson {
  id: number;
  ruleId: number | null;
  rule: string;
  key: string;
  firedAt: string;
  message: string;
  /** the delivery task */
  taskToken: string | null;
  /** the delivery task's status (pending, running, succeeded, dead, cancelled), or `gone` once pruned */
  status: string;
  test: boolean;
}

export interface AlertFiringsJson {
  items: AlertFiringJson[];
  next: number | null;
}

export interface AlertTestJson {
  firing: AlertFiringJson | null;
  token: string;
}

export const maskSecret = (s: string | null): string | null => (s === null ? null : '••••' + s.slice(-4));

export const alertRuleJson = (r: AlertRule): AlertRuleJson => ({
  id: r.id,
  name: r.name,
  kind: r.kind,
  kindLabel: ALERT_KIND_INFO[r.kind]?.label ?? r.kind,
  queue: r.params.queue ?? null,
  command: r.params.command ?? null,
  schedule: r.params.schedule ?? null,
  thresholdMs: r.params.thresholdMs ?? null,
  count: r.params.count ?? null,
  url: maskWebhookUrl(r.url),
  secret: maskSecret(r.secret),
  format: r.format,
  dedupMs: r.dedupMs,
  enabled: r.enabled,
  createdBy: r.createdBy,
  createdAt: r.createdAt.toISOString(),
  updatedBy: r.updatedBy,
  updatedAt: r.updatedAt.toISOString(),
});

export const alertFiringJson = (f: AlertFiring): AlertFiringJson => ({
  id: f.id,
  ruleId: f.ruleId,
  rule: f.ruleName,
  key: f.dedupKey,
  firedAt: f.firedAt.toISOString(),
  message: f.message,
  taskToken: f.taskToken,
  status: f.status,
  test: f.test,
});

// ---- validation ---------------------------------------------------------------------------

const webhookUrl = z
  .string()
  .trim()
  .max(MAX_URL_LENGTH, `at most ${MAX_URL_LENGTH} characters`)
  .refine((s) => {
    try {
      const u = new URL(s);
      return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
    } catch {
      return false;
    }
  }, 'must be an http:// or https:// URL');

const optionalName = queueName.nullable().optional();
const command = z.string().trim().min(1, 'required').max(MAX_HANDLER_NAME_LENGTH, `at most ${MAX_HANDLER_NAME_LENGTH} characters`);
const ms = (max: number) => z.number().int('must be an integer (ms)').min(1000, 'at least 1000 ms').max(max, `at most ${max} ms`);

/** A rule as a request body names it (flat: the kind's parameters beside the delivery fields). */
export const alertRuleRequest = z.strictObject({
  name: queueName,
  kind: z.enum(ALERT_KINDS),
  queue: optionalName,
  command: command.nullable().optional(),
  schedule: optionalName,
  thresholdMs: ms(MAX_THRESHOLD_MS).nullable().optional(),
  count: z.number().int('must be an integer').min(1, 'at least 1').max(MAX_STREAK, `at most ${MAX_STREAK}`).nullable().optional(),
  url: webhookUrl,
  secret: z.string().min(1, 'empty: leave it out (or null) for no signature').max(MAX_SECRET_LENGTH).nullable().optional(),
  format: z.enum(ALERT_FORMATS).default('json'),
  dedupMs: z.number().int('must be an integer (ms)').min(0).max(MAX_DEDUP_MS, `at most ${MAX_DEDUP_MS} ms`).default(DEFAULT_DEDUP_MS),
  enabled: z.boolean().default(true),
});
export type AlertRuleRequest = z.input<typeof alertRuleRequest>;

/** A checked request as a rule definition: only the kind's parameters kept, the required ones present. */
export function validateAlertRule(raw: unknown): AlertRuleInput {
  const r = parseWith(alertRuleRequest, raw);
  const info = ALERT_KIND_INFO[r.kind];
  for (const f of info.required) {
    if ((r as Record<string, unknown>)[f] === undefined || (r as Record<string, unknown>)[f] === null) {
      throw new ValidationError(f, `required for a ${r.kind} rule`);
    }
  }
  const params: Record<string, unknown> = {};
  for (const f of info.params) {
    const v = (r as Record<string, unknown>)[f];
    if (v !== undefined && v !== null) params[f] = v;
  }
  return {
    name: r.name,
    kind: r.kind,
    params,
    url: r.url,
    secret: r.secret ?? null,
    format: r.format,
    dedupMs: r.dedupMs,
    enabled: r.enabled,
  };
}

/** A rule id from a path segment or an argument. */
export function alertIdParam(raw: unknown): number {
  const s = typeof raw === 'number' ? String(raw) : String(raw ?? '');
  if (!/^\d{1,9}$/.test(s) || Number(s) < 1) throw new ValidationError('id', 'not an alert rule id (a positive integer)');
  return Number(s);
}

const firingsQuery = z.object({
  cursor: z.coerce.number().int().min(1).optional(),
  limit: z.coerce.number().int().min(1).max(MAX_FIRINGS_LISTED).default(DEFAULT_FIRINGS_LISTED),
  rule: z.coerce.number().int().min(1).optional(),
});

/** The request a rule would be created from (what a PATCH is merged into); the secret left as stored. */
function asRequest(r: AlertRule): Record<string, unknown> {
  return {
    name: r.name,
    kind: r.kind,
    ...r.params,
    url: r.url,
    secret: r.secret,
    format: r.format,
    dedupMs: r.dedupMs,
    enabled: r.enabled,
  };
}

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
