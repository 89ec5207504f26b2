// Human-readable forms of `alert list` and `alert show` (the --json forms are lib/api/alerts.ts as is).
import type { AlertFiringJson, AlertRuleJson } from '../lib/api/alerts';
import { table } from './format';

/** what a rule watches, in a few words */
export function watches(r: AlertRuleJson): string {
  const parts: string[] = [];
  if (r.queue) parts.push(`queue ${r.queue}`);
  if (r.command) parts.push(`command ${r.command}`);
  if (r.schedule) parts.push(`schedule ${r.schedule}`);
  if (r.thresholdMs !== null) parts.push(`> ${Math.round(r.thresholdMs / 1000)} s`);
  if (r.count !== null) parts.push(`${r.count} in a row`);
  return parts.join(', ') || 'all';
}

export function formatAlertRules(rules: AlertRuleJson[]): string {
  if (!rules.length) return 'no alert rules (add one: readpast alert add NAME --kind … --url …)';
  return table([
    ['ID', 'NAME', 'KIND', 'WATCHES', 'FORMAT', 'DEDUP', 'STATE', 'URL'],
    ...rules.map((r) => [
      String(r.id),
      r.name,
      r.kind,
      watches(r),
      r.format,
      `${Math.round(r.dedupMs / 60_000)} min`,
      r.enabled ? 'enabled' : 'disabled',
      r.url,
    ]),
  ]);
}

export function formatFirings(items: AlertFiringJson[]): string {
  if (!items.length) return 'nothing fired yet';
  return table([
    ['FIRED', 'RULE', 'DELIVERY', 'TASK', 'MESSAGE'],
    ...items.map((f) => [f.firedAt, f.rule + (f.test ? ' (test)' : ''), f.status, f.taskToken ?? '-', f.message]),
  ]);
}

export function formatAlertRule(r: AlertRuleJson & { firings: AlertFiringJson[] }): string {
  const head = table([
    ['id', String(r.id)],
    ['name', r.name],
    ['kind', `${r.kind} (${r.kindLabel})`],
    ['watches', watches(r)],
    ['url', r.url],
    ['secret', r.secret ?? '(none: no signature header)'],
    ['format', r.format],
    ['dedup', `${Math.round(r.dedupMs / 1000)} s`],
    ['state', r.enabled ? 'enabled' : 'disabled'],
    ['updated', `${r.updatedAt} by ${r.updatedBy}`],
  ]);
  return `${head}\n\nrecent firings:\n${formatFirings(r.firings)}`;
}
