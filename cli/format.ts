// Human-readable forms of `status` and `stats` (the --json forms are lib/api/present.ts as is).
import type { StatusJson } from '../lib/api/present';
import type { statsJson } from '../lib/api/present';

type StatsJson = ReturnType<typeof statsJson>;

function duration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 3_600_000) return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
  return `${Math.floor(ms / 3_600_000)} h ${Math.round((ms % 3_600_000) / 60_000)} min`;
}

function between(from: string | null, to: string | null): string {
  if (!from || !to) return '';
  return ` (${duration(Math.max(0, Date.parse(to) - Date.parse(from)))})`;
}

function compactJson(v: unknown, max = 200): string {
  const text = JSON.stringify(v) ?? 'null';
  return text.length > max ? text.slice(0, max - 1) + '…' : text;
}

/** Left-aligned columns separated by two spaces. */
export function table(rows: string[][]): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows
    .map((row) =>
      row
        .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** a task's parents or children, one per line (at most the ones the read returned, with how many more) */
function links(title: string, list: StatusJson['parents'], total: number): string {
  if (list.length === 0) return '';
  const rows = list.map((l) => ['  ' + l.token, l.status, l.nodeId ?? '-', l.command, `on failure: ${l.onParentFailure}`]);
  const more = total - list.length;
  return `\n\n${title}:\n` + table(rows) + (more > 0 ? `\n  … and ${more} more` : '');
}

/** a suspended durable task: ` (sleeping until …)` / ` (waiting for an event, times out at …)` */
function suspendedText(s: StatusJson): string {
  if (!s.suspended) return '';
  const until = s.runAfter && Date.parse(s.runAfter) < Date.UTC(9999, 0) ? s.runAfter : null;
  if (s.suspended === 'sleep') return ` (sleeping until ${until ?? '-'})`;
  return ` (waiting for an event${until ? `, times out at ${until}` : ''}; readpast event send)`;
}

export function formatStatus(s: StatusJson): string {
  const lines: string[][] = [
    ['token', s.token],
    ['status', s.status + (s.cancelRequested && s.status === 'running' ? ' (cancel requested)' : '') + suspendedText(s)],
    ['queue', s.queue],
    ...(s.concurrencyKey === null ? [] : [['key', s.concurrencyKey]]),
    ['task', `${s.kind} ${s.kind === 'sql' ? compactJson(s.command, 120) : s.command}`],
    ['priority', String(s.priority)],
    ['attempts', `${s.attempts} of ${s.maxAttempts}${s.suspensions ? ` (${s.suspensions} ended suspended, not counted)` : ''}`],
    ['created', s.createdAt ?? '-'],
  ];
  if (s.schedule)
    lines.push(['schedule', `${s.schedule.name}, ${s.schedule.manual ? `run now at ${s.schedule.fireAt}` : `tick ${s.schedule.fireAt}`}`]);
  if (s.runAfter && s.createdAt && s.status === 'pending' && Date.parse(s.runAfter) > Date.now()) lines.push(['run after', s.runAfter]);
  if (s.flowId !== null) lines.push(['flow', `${s.flowId}${s.flowNode === null ? '' : `, node ${s.flowNode}`}`]);
  if (s.parentCount > 0) lines.push(['parents', `${s.parentCount} (${s.parentsLeft} not done yet)`]);
  lines.push(['started', s.startedAt ?? '-']);
  lines.push(['finished', (s.finishedAt ?? '-') + between(s.startedAt, s.finishedAt)]);
  if (s.workerId) lines.push(['worker', s.workerId]);
  if (s.result !== null && s.result !== undefined) lines.push(['result', compactJson(s.result)]);
  if (s.lastError) {
    lines.push(['last error', `${s.lastError.number === null ? '' : `[${s.lastError.number}] `}${s.lastError.message}`]);
  }
  let out = table(lines.map(([k, v]) => [k + ':', v!]));
  out += links('parents', s.parents, s.parentCount) + links('children', s.children, s.childCount);
  out += '\n\nhistory:';
  if (s.history.length === 0) return out + ' no attempts yet';
  const rows = [['#', 'outcome', 'worker', 'session', 'started', 'ended', 'error']];
  for (const a of s.history) {
    const error = a.errorMessage ? `${a.errorNumber === null ? '' : `[${a.errorNumber}] `}${a.errorMessage}` : '';
    rows.push([
      String(a.attempt),
      a.outcome,
      a.workerId ?? '-',
      a.session === null ? '-' : String(a.session),
      a.startedAt ?? '-',
      (a.endedAt ?? '-') + between(a.startedAt, a.endedAt),
      error,
    ]);
  }
  return (
    out +
    '\n' +
    table(rows)
      .split('\n')
      .map((l) => '  ' + l)
      .join('\n')
  );
}

export function formatStats(s: StatsJson): string {
  // waiting (for parents) and claimed (ahead by a pool, not started) last: scripts that read the first columns keep
  // reading them
  const rows = [['QUEUE', 'PENDING', 'RUNNING', 'SUCCEEDED', 'DEAD', 'CANCELLED', 'WAITING', 'CLAIMED']];
  const row = (name: string, c: StatsJson['totals']) =>
    [name, c.pending, c.running, c.succeeded, c.dead, c.cancelled, c.waiting, c.claimed].map(String);
  for (const q of s.queues) rows.push(row(q.queue, q));
  rows.push(row('(total)', s.totals));
  let out = table(rows);
  out += '\n\n';
  if (s.workers.length === 0) return out + 'workers: none registered';
  const wrows = [['WORKER', 'HOST', 'PID', 'ROLE', 'STATE', 'HEARTBEAT', 'CURRENT TASK']];
  for (const w of s.workers) {
    const current = w.currentTask ? `${w.currentTask.command} ${w.currentTask.token}` : '-';
    wrows.push([w.workerId, w.host, String(w.pid), w.role, w.state, `${duration(w.heartbeatAgeMs)} ago`, current]);
  }
  return out + table(wrows);
}
