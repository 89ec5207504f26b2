// The built-in handler of alert deliveries (ALERT_HANDLER, queue ALERT_QUEUE): POST the body computed at
// fire time, with its signature, to the rule's webhook. A non-2xx answer, a refused connection or a
// timeout throws, so readpast retries the delivery with backoff like any task (visible, retryable).
import { ALERT_DELIVERY_TIMEOUT_MS, ALERT_SIGNATURE_HEADER, type AlertDeliveryPayload } from './alert-types';
import { NonRetryableError, TaskError } from './errors';

function payloadOf(p: unknown): AlertDeliveryPayload {
  const o = (p ?? {}) as Record<string, unknown>;
  const str = (k: string) => (typeof o[k] === 'string' ? (o[k] as string) : null);
  const url = str('url');
  const body = str('body');
  if (!url || !/^https?:\/\//i.test(url)) throw new NonRetryableError(`alert delivery: url must be http(s)`);
  if (body === null) throw new NonRetryableError('alert delivery: body must be a string');
  return {
    rule: str('rule') ?? '',
    key: str('key') ?? '',
    url,
    contentType: str('contentType') ?? 'application/json',
    body,
    signature: str('signature'),
  };
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
export async function deliverAlert(payload: unknown, ctx: { signal: AbortSignal }): Promise<{ status: number; host: string }> {
  const p = payloadOf(payload);
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
