// The built-in handler of alert deliveries (ALERT_HANDLER, queue ALERT_QUEUE): POST the body computed at
// fire time, with its signature, to the rule's webhook, its URL read from the rule when the delivery runs
// (a webhook URL is a credential: it is never kept in the task, and reads show it masked). A non-2xx answer,
// a refused connection or a timeout throws, so readpast retries the delivery with backoff like any task.
import { ALERT_DELIVERY_TIMEOUT_MS, ALERT_SIGNATURE_HEADER, type AlertDeliveryPayload } from './alert-types';
import { NonRetryableError, TaskError } from './errors';

/** How a delivery finds its rule's webhook when it runs (lib/api wires it to the store's read model). */
export type AlertRuleLookup = (id: number) => Promise<{ url: string } | null>;

interface Delivery extends Omit<AlertDeliveryPayload, 'ruleId'> {
  url: string;
}

async function deliveryOf(p: unknown, lookup: AlertRuleLookup | null): Promise<Delivery> {
  const o = (p ?? {}) as Record<string, unknown>;
  const str = (k: string) => (typeof o[k] === 'string' ? (o[k] as string) : null);
  const body = str('body');
  if (body === null) throw new NonRetryableError('alert delivery: body must be a string');
  // a delivery enqueued before the URL was kept out of the task carries it
  let url = str('url');
  if (url === null) {
    const id = o.ruleId;
    if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1)
      throw new NonRetryableError('alert delivery: ruleId must be a rule id');
    if (!lookup) throw new NonRetryableError('alert delivery: no store to read the rule from (run it in a readpast pool)');
    const rule = await lookup(id);
    if (!rule) throw new NonRetryableError(`alert delivery: alert rule ${id} was deleted before the delivery ran`);
    url = rule.url;
  }
  if (!/^https?:\/\//i.test(url)) throw new NonRetryableError(`alert delivery: url must be http(s)`);
  return {
    rule: str('rule') ?? '',
    key: str('key') ?? '',
    url,
    contentType: str('contentType') ?? 'application/json',
    body,
    signature: str('signature'),
  };
}

/**
 * A webhook URL as reads show it: scheme, host and the last 4 characters of the rest (`https://hooks.slack.com/…Xy9Z`).
 * The path and query of a Slack or Teams URL are its secret; the host says where it goes.
 */
export function maskWebhookUrl(url: string): string {
  try {
    const u = new URL(url);
    const rest = `${u.pathname}${u.search}`.replace(/^\/$/, '');
    return `${u.protocol}//${u.host}${rest ? `/…${rest.slice(-4)}` : ''}`;
  } catch {
    return '…';
  }
}

/** where a delivery went, without the path (a Slack URL's path is its secret) */
export function webhookHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '?';
  }
}

/** POST one alert; resolves with the answer's status, throws (retryably) when the webhook did not take it. */
export async function deliverAlert(
  payload: unknown,
  ctx: { signal: AbortSignal },
  lookup: AlertRuleLookup | null = null,
): Promise<{ status: number; host: string }> {
  const p = await deliveryOf(payload, lookup);
  const host = webhookHost(p.url);
  const timeout = AbortSignal.timeout(ALERT_DELIVERY_TIMEOUT_MS);
  const signal = AbortSignal.any([ctx.signal, timeout]);
  const headers: Record<string, string> = { 'content-type': p.contentType, 'user-agent': 'readpast-alerts' };
  if (p.signature) headers[ALERT_SIGNATURE_HEADER] = p.signature;
  let res: Response;
  try {
    res = await fetch(p.url, { method: 'POST', headers, body: p.body, signal, redirect: 'manual' });
  } catch (err) {
    if (ctx.signal.aborted) throw ctx.signal.reason;
    if (timeout.aborted) throw new TaskError(`alert delivery to ${host} timed out after ${ALERT_DELIVERY_TIMEOUT_MS / 1000} s`);
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new TaskError(`alert delivery to ${host} failed: ${cause?.code ?? cause?.message ?? (err as Error).message}`);
  }
  const text = await res.text().catch(() => '');
  if (res.status < 200 || res.status > 299) {
    throw new TaskError(`webhook ${host} answered ${res.status}${text ? `: ${text.slice(0, 200)}` : ''}`, { number: res.status });
  }
  return { status: res.status, host };
}
