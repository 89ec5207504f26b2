// Human-readable forms of `schedule list` and `schedule show` (--json prints the present.ts shapes).
import type { ScheduleDetailJson, ScheduleJson } from '../lib/api/present';
import { table } from './format';

/** `in 4 min`, `12 s ago` */
export function relative(iso: string | null, now = Date.now()): string {
  if (!iso) return '';
  const ms = Date.parse(iso) - now;
  const abs = Math.abs(ms);
  const text =
    abs < 60_000
      ? `${Math.round(abs / 1000)} s`
      : abs < 3_600_000
        ? `${Math.round(abs / 60_000)} min`
        : abs < 172_800_000
          ? `${Math.round(abs / 3_600_000)} h`
          : `${Math.round(abs / 86_400_000)} d`;
  return ms >= 0 ? `in ${text}` : `${text} ago`;
}

/**
 * How far off a schedule's next fire is: `in 5 s`, or `due now` once it has come (read back a moment after it was
 * computed, on a busy machine, a next fire can already be past: it is due, not "0 s ago").
 */
export function untilNext(iso: string | null, now = Date.now()): string {
  return iso && Date.parse(iso) <= now ? 'due now' : relative(iso, now);
}

function last(s: ScheduleJson): string {
  const f = s.recent[0];
  if (!f) return s.lastFireAt ? `${s.lastFireAt} (task pruned)` : 'never';
  return `${f.fireAt} ${f.status}${f.manual ? ' (manual)' : ''}`;
}

const state = (s: ScheduleJson) => (s.enabled ? 'enabled' : s.source === 'code' && !s.declared ? 'disabled (not in code)' : 'paused');

export function formatSchedules(list: ScheduleJson[], now = Date.now()): string {
  if (list.length === 0) return 'schedules: none yet (readpast schedule add NAME --cron EXPR --handler NAME)';
  const rows = [['NAME', 'CRON', 'ZONE', 'NEXT', 'LAST', 'STATE', 'SOURCE']];
  for (const s of list) {
    rows.push([
      s.name,
      s.cron,
      s.timezone,
      s.nextFireAt ? `${s.nextFireAt} (${untilNext(s.nextFireAt, now)})` : '-',
      last(s),
      state(s),
      s.source,
    ]);
  }
  return table(rows);
}

export function formatSchedule(s: ScheduleDetailJson, now = Date.now()): string {
  const task =
    s.kind === 'handler'
      ? `handler ${s.command}${s.payload === null ? '' : ` ${JSON.stringify(s.payload)}`}`
      : s.kind === 'procedure'
        ? `procedure ${s.command}${s.payload === null ? '' : ` ${JSON.stringify(s.payload)}`}`
        : `sql ${s.command.length > 80 ? s.command.slice(0, 79) + '…' : s.command}`;
  const timeout = s.timeoutMs === null ? "the queue's" : `${s.timeoutMs} ms`;
  const rows = [
    ['schedule', s.name],
    ['cron', `${s.cron}  (${s.description})`],
    ['time zone', s.timezone],
    ['task', task],
    ['queue', `${s.queue}, priority ${s.priority}, max attempts ${s.maxAttempts ?? "the queue's"}, timeout ${timeout}`],
    ['policies', `misfire ${s.misfire}, overlap ${s.overlap}`],
    ['state', `${state(s)}, source ${s.source}`],
    ['next', s.nextFireAt ? `${s.nextFireAt} (${untilNext(s.nextFireAt, now)})` : '-'],
    ['last', last(s)],
    ['changed', `${s.updatedAt} by ${s.updatedBy} (created ${s.createdAt} by ${s.createdBy})`],
  ];
  let out = table(rows);
  if (s.nextFires.length) out += '\n\nnext fires:\n' + s.nextFires.map((t) => `  ${t}`).join('\n');
  if (s.recent.length) {
    const fires = [['FIRE AT', 'STATUS', 'TOKEN']];
    for (const f of s.recent) fires.push([f.fireAt + (f.manual ? ' (manual)' : ''), f.status, f.token]);
    out += '\n\nrecent fires (newest first):\n' + table(fires);
  }
  return out;
}
