// The built-in handler of alert deliveries (ALERT_HANDLER, queue ALERT_QUEUE): POST the body computed at
// fire time, with its signature, to the rule's webhook, its URL read from the rule when the delivery runs
// (a webhook URL is a credential: it is never kept in the task, and reads show it masked). A non-2xx answer,
// a refused connection or a timeout throws, so readpast retries the delivery with backoff like any task.
// Where it may connect is webhook-guard.ts's: the host is resolved, every address checked, and the socket
// connects to the checked address (an internal one is refused before any connect, the task dead at once
// saying why). Redirects are not followed: a 3xx is a failed attempt that says so.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { ALERT_DELIVERY_TIMEOUT_MS, ALERT_SIGNATURE_HEADER, type AlertDeliveryPayload } from './alert-types';
import { NonRetryableError, TaskError } from './errors';
import { addressRefusal, guardedLookup, literalAddress, webhookPolicy, WebhookRefusedError, type WebhookPolicy } from './webhook-guard';

/** the most of a webhook's answer read (its first 200 characters go into the error of a failed attempt) */
const MAX_ANSWER_BYTES = 4096;

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

interface Answer {
  status: number;
  location: string | null;
  text: string;
}

/** one POST over node:http(s), its connection made through `lookup` (a fresh connection each time, never pooled) */
function post(url: URL, headers: Record<string, string>, body: string, signal: AbortSignal, lookup: ReturnType<typeof guardedLookup>) {
  return new Promise<Answer>((resolve, reject) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(
      url,
      { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, signal, lookup, agent: false },
      (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const done = () =>
          resolve({
            status: res.statusCode ?? 0,
            location: typeof res.headers.location === 'string' ? res.headers.location : null,
            text: Buffer.concat(chunks).toString('utf8'),
          });
        res.on('data', (c: Buffer) => {
          chunks.push(c);
          size += c.length;
          if (size >= MAX_ANSWER_BYTES) {
            done();
            res.destroy();
          }
        });
        res.on('end', done);
        res.on('error', reject);
        res.on('close', () => (res.complete ? done() : reject(new Error('the connection closed before the answer ended'))));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** where a redirect pointed (` to host`), without its path (it may carry a secret); empty without a readable Location */
function redirectTarget(location: string | null, base: URL): string {
  if (!location) return '';
  try {
    return ` to ${new URL(location, base).host}`;
  } catch {
    return '';
  }
}

/**
 * POST one alert; resolves with the answer's status, throws (retryably) when the webhook did not take it, and
 * not retryably when the policy refuses its address (`policy`: the pool's; READPAST_WEBHOOK_ALLOW without one).
 */
export async function deliverAlert(
  payload: unknown,
  ctx: { signal: AbortSignal },
  lookup: AlertRuleLookup | null = null,
  policy: WebhookPolicy | null = null,
): Promise<{ status: number; host: string }> {
  const p = await deliveryOf(payload, lookup);
  const guard = policy ?? webhookPolicy();
  let target: URL;
  try {
    target = new URL(p.url);
  } catch {
    throw new NonRetryableError('alert delivery: url is not a URL');
  }
  const host = target.host;
  // a literal address is checked here (no lookup runs for it); a name is resolved and checked by guardedLookup
  const literal = literalAddress(target.hostname);
  const refused = literal && addressRefusal(literal, guard.allow);
  if (refused) throw new NonRetryableError(`alert delivery to ${host} refused: ${refused}`);
  const timeout = AbortSignal.timeout(ALERT_DELIVERY_TIMEOUT_MS);
  const signal = AbortSignal.any([ctx.signal, timeout]);
  const headers: Record<string, string> = { 'content-type': p.contentType, 'user-agent': 'readpast-alerts' };
  if (p.signature) headers[ALERT_SIGNATURE_HEADER] = p.signature;
  let res: Answer;
  try {
    res = await post(target, headers, p.body, signal, guardedLookup(guard));
  } catch (err) {
    if (ctx.signal.aborted) throw ctx.signal.reason;
    if (timeout.aborted) throw new TaskError(`alert delivery to ${host} timed out after ${ALERT_DELIVERY_TIMEOUT_MS / 1000} s`);
    if (err instanceof WebhookRefusedError) throw new NonRetryableError(`alert delivery to ${host} refused: ${err.message}`);
    const e = err as { code?: string; message?: string };
    throw new TaskError(`alert delivery to ${host} failed: ${e.code ?? e.message}`);
  }
  if (res.status >= 300 && res.status <= 399) {
    throw new TaskError(
      `webhook ${host} answered ${res.status} (a redirect${redirectTarget(res.location, target)}): redirects are not followed, ` +
        'set the rule to the URL that answers',
      { number: res.status },
    );
  }
  if (res.status < 200 || res.status > 299) {
    throw new TaskError(`webhook ${host} answered ${res.status}${res.text ? `: ${res.text.slice(0, 200)}` : ''}`, { number: res.status });
  }
  return { status: res.status, host };
}
