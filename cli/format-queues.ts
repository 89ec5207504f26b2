// Human-readable forms of `queue set`, `queue list` and `queue tokens` (--json prints the present.ts shapes).
import type { queueChangeJson, queueJson, tokenJson } from '../lib/api/present';
import { table } from './format';

type QueueJson = ReturnType<typeof queueJson>;
type QueueChangeJson = ReturnType<typeof queueChangeJson>;
type TokenJson = ReturnType<typeof tokenJson>;

const limitText = (limit: number | null) => (limit === null ? 'unlimited' : String(limit));

/** `queue NAME: limit 3, running 2, pending 40, granted 2` (and `, paused`) */
export function formatQueueLine(q: QueueJson): string {
  return (
    `queue ${q.name}: limit ${limitText(q.concurrencyLimit)}${q.paused ? ', paused' : ''}, running ${q.running}, ` +
    `pending ${q.pending}, granted ${q.granted}`
  );
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
  }
  out += '\n\n';
  if (changes.length === 0) return out + 'changes: none recorded';
  const shown = changes.slice(0, maxChanges);
  const rows = [['AT', 'QUEUE', 'BY', 'CHANGE']];
  for (const c of shown)
    rows.push([c.at ?? '-', c.queue, c.changedBy, `${c.field === 'concurrencyLimit' ? 'limit' : c.field} ${c.oldValue} → ${c.newValue}`]);
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
