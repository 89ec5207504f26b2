// Alert rules and fired alerts as JSON (the API's, the dashboard's and the CLI's view): a secret is never
// shown in full (`••••` + its last 4), a webhook URL only masked.
import { ALERT_KIND_INFO, type AlertFiring, type AlertFormat, type AlertKind, type AlertRule } from '../engine/alert-types';
import { maskWebhookUrl } from '../engine/alert-delivery';

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
