// Alert rule requests checked at the front door: a rule's body (flat: the kind's parameters beside the
// delivery fields), a rule id, the firings query, and the request a stored rule would be created from.
import { z } from 'zod';
import {
  ALERT_FORMATS,
  ALERT_KIND_INFO,
  ALERT_KINDS,
  DEFAULT_DEDUP_MS,
  MAX_STREAK,
  type AlertRule,
  type AlertRuleInput,
} from '../engine/alert-types';
import { ValidationError } from '../engine/errors';
import { MAX_HANDLER_NAME_LENGTH } from '../engine/limits';
import { parseWith, queueName } from '../engine/validation';

export const MAX_URL_LENGTH = 2000;
export const MAX_SECRET_LENGTH = 400;
export const MAX_DEDUP_MS = 7 * 24 * 3600_000;
export const MAX_THRESHOLD_MS = 30 * 24 * 3600_000;
export const DEFAULT_FIRINGS_LISTED = 50;
export const MAX_FIRINGS_LISTED = 500;

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

export const firingsQuery = z.object({
  cursor: z.coerce.number().int().min(1).optional(),
  limit: z.coerce.number().int().min(1).max(MAX_FIRINGS_LISTED).default(DEFAULT_FIRINGS_LISTED),
  rule: z.coerce.number().int().min(1).optional(),
});

/** The request a rule would be created from (what a PATCH is merged into); the secret left as stored. */
export function asRequest(r: AlertRule): Record<string, unknown> {
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
