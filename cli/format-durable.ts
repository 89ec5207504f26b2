// Text output of `readpast event …` (--json prints the front door's JSON instead).
import type { EventDetailJson, EventJson } from '../lib/api/present';
import type { SendEventResult } from '../lib/engine/types';

const preview = (v: unknown, max = 60) => {
  const s = JSON.stringify(v) ?? 'null';
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
};

export function formatSent(name: string, r: SendEventResult): string {
  const head = `sent event ${r.id} ${name}: resumed ${r.resumed} task${r.resumed === 1 ? '' : 's'}`;
  return [head, ...r.tokens.map((t) => `  ${t}`)].join('\n');
}

export function formatEventList(items: EventJson[], nextCursor: number | null): string {
  if (items.length === 0) return 'no events';
  const lines = items.map((e) => `${String(e.id).padStart(6)}  ${e.sentAt}  ${e.name}  resumed ${e.resumed}  ${preview(e.payload)}`);
  if (nextCursor !== null) lines.push(`more: --before ${nextCursor}`);
  return lines.join('\n');
}

export function formatEvent(e: EventDetailJson): string {
  const lines = [
    `event ${e.id} ${e.name}`,
    `sent     ${e.sentAt}${e.caller ? ` by ${e.caller}` : ''}`,
    `payload  ${JSON.stringify(e.payload)}`,
    `resumed  ${e.resumed} task${e.resumed === 1 ? '' : 's'}`,
  ];
  for (const t of e.tasks) lines.push(`  ${t.token}  ${t.status}  ${t.queue}  ${t.command}  (step ${t.step})`);
  return lines.join('\n');
}
