// Human-readable forms of `queue set`, `queue show`, `queue list` and `queue tokens` (--json prints the present.ts shapes).
import { rateText } from '../lib/engine/keys';
import type { queueChangeJson, queueJson, tokenJson } from '../lib/api/present';
import { table } from './format';

type QueueJson = ReturnType<typeof queueJson>;
type QueueChangeJson = ReturnType<typeof queueChangeJson>;
type TokenJson = ReturnType<typeof tokenJson>;

const limitText = (limit: number | null) => (limit === null ? 'unlimited' : String(limit));

/** `per key 1, key from $.customerId, rate 60/1m` — the throttle a queue has (empty: none) */
function throttleText(q: QueueJson): string {
  const parts: string[] = [];
  if (q.perKeyLimit !== null) parts.push(`per key ${q.perKeyLimit}`);
  if (q.keyFrom !== null) parts.push(`key from ${q.keyFrom}`);
  if (q.rateLimit !== null) parts.push(`rate ${rateText(q.rateLimit)}`);
  return parts.join(', ');
}

/** `queue NAME: limit 3, running 2, pending 40, granted 2` (and `, paused`; then its throttle) */
export function formatQueueLine(q: QueueJson): string {
  const throttle = throttleText(q);
  return (
    `queue ${q.name}: limit ${limitText(q.concurrencyLimit)}${q.paused ? ', paused' : ''}, running ${q.running}, ` +
    `pending ${q.pending}, granted ${q.granted}${throttle ? `, ${throttle}` : ''}`
  );
}

/** `12 of 60 started in the last 60 s; next start in 14 s` (of the busiest key, for a per-key rate) */
export function rateUsageText(r: NonNullable<QueueJson['rate']>, now = Date.now()): string {
  const whose = r.perKey ? ' (busiest key)' : '';
  const next =
    r.nextAt === null ? 'a start is allowed now' : `next start in ${Math.max(0, Math.ceil((Date.parse(r.nextAt) - now) / 1000))} s`;
  return `${r.started} of ${r.limit} started in the last ${r.periodSeconds} s${whose}; ${next}`;
}

const changeText = (c: QueueChangeJson) => `${c.field === 'concurrencyLimit' ? 'limit' : c.field} ${c.oldValue} → ${c.newValue}`;

/** `queue show`: one queue's settings, its rate window, top keys and recent changes. */
export function formatQueueShow(q: QueueJson & { changes: QueueChangeJson[] }, now = Date.now()): string {
  const rows = [
    ['queue', q.name],
    ['limit', `${limitText(q.concurrencyLimit)} (running ${q.running}, granted ${q.granted})`],
    ['paused', q.paused ? 'yes' : 'no'],
    ['pending', String(q.pending)],
    ['per-key limit', q.perKeyLimit === null ? 'none' : String(q.perKeyLimit)],
    ['key from', q.keyFrom ?? 'none'],
    ['rate', q.rateLimit === null ? 'none' : rateText(q.rateLimit)],
  ];
  if (q.rate) rows.push(['window', rateUsageText(q.rate, now)]);
  let out = table(rows);
  if (q.keys.length === 0) out += '\n\nkeys: none with running or pending tasks';
  else {
    const keyRows = [['KEY', 'RUNNING', 'PENDING']];
    for (const k of q.keys) keyRows.push([k.key, String(k.running), String(k.pending)]);
    out += `\n\ntop keys (most running, then most pending):\n${table(keyRows)}`;
  }
  if (q.changes.length === 0) return `${out}\n\nchanges: none recorded`;
  const changeRows = [['AT', 'BY', 'CHANGE']];
  for (const c of q.changes) changeRows.push([c.at ?? '-', c.changedBy, changeText(c)]);
  return `${out}\n\nchanges (newest first):\n${table(changeRows)}`;
}

export function formatQueues(queues: QueueJson[], changes: QueueChangeJson[], maxChanges = 20): string {
  let out: string;
  if (queues.length === 0) out = 'queues: none yet';
  else {
    const rows = [['QUEUE', 'LIMIT', 'PAUSED', 'RUNNING', 'PENDING', 'GRANTED']];
    for (const q of queues) {
      rows.push([q.name, limitText(q.concurrencyLimit), q.paused ? 'yes' : 'no', String(q.running), String(q.pending), String(q.granted)]);
    }
    out = table(rows);
    const throttled = queues.filter((q) => throttleText(q) !== '').map((q) => [q.name, throttleText(q)]);
    if (throttled.length > 0) out += `\n\nthrottle:\n${table(throttled)}`;
  }
  out += '\n\n';
  if (changes.length === 0) return out + 'changes: none recorded';
  const shown = changes.slice(0, maxChanges);
  const rows = [['AT', 'QUEUE', 'BY', 'CHANGE']];
  for (const c of shown) rows.push([c.at ?? '-', c.queue, c.changedBy, changeText(c)]);
  const more = changes.length > shown.length ? `\n(${changes.length - shown.length} older changes; --json lists them)` : '';
  return out + `changes (newest first):\n` + table(rows) + more;
}

export function formatTokens(tokens: TokenJson[], queue: string | undefined): string {
  if (tokens.length === 0) {
    return queue === undefined
      ? 'tokens: none (no queue has a limit, or none has been claimed from)'
      : `queue ${queue}: no tokens (unlimited, or nothing claimed since the limit was set)`;
  }
  const rows = [['QUEUE', 'TOKEN', 'STATUS', 'TASK', 'ATTEMPT', 'WORKER', 'SESSION', 'GRANTED AT', 'HOLDER']];
  for (const t of tokens) {
    const granted = t.status === 'granted';
    rows.push([
      t.queue,
      String(t.tokenNo),
      t.status,
      granted ? (t.token ?? '-') : '-',
      granted && t.attempt !== null ? String(t.attempt) : '-',
      granted ? (t.workerId ?? '-') : '-',
      granted && t.session !== null ? String(t.session) : '-',
      granted ? (t.grantedAt ?? '-') : '-',
      granted ? (t.holderDead ? 'DEAD' : 'alive') : '-',
    ]);
  }
  const dead = tokens.filter((t) => t.status === 'granted' && t.holderDead).length;
  return (
    table(rows) + (dead > 0 ? `\n\n${dead} grant(s) held by a dead holder: reclaimed by the next claim once the lease has expired` : '')
  );
}
