// `readpast doctor` as a person reads it: one line per check (✓ fine, ✗ missing or failing, – for
// information or skipped), the remedy under a ✗ or – line that has one, and a verdict.
import type { DoctorJson } from '../lib/api/present';

const MARK = (ok: boolean | null) => (ok === true ? '✓' : ok === false ? '✗' : '–');

export function formatDoctor(r: DoctorJson): string {
  const width = Math.max(...r.checks.map((c) => c.title.length), 0);
  const lines = [`readpast doctor — ${r.database}`, ''];
  for (const c of r.checks) {
    const optional = c.ok === false && !c.needed ? ' (optional)' : '';
    lines.push(`${MARK(c.ok)} ${c.title.padEnd(width)}  ${c.detail}${optional}`);
    if (c.remedy && c.ok !== true) lines.push(`  ${' '.repeat(width)}  → ${c.remedy}`);
  }
  lines.push('');
  const { failed, optional } = r.summary;
  const off = optional ? ` (${optional} optional feature${optional === 1 ? ' is' : 's are'} off)` : '';
  if (r.ok) lines.push(`OK: everything this configuration needs is in place${off}.`);
  else {
    const names = r.checks.filter((c) => c.needed && c.ok === false).map((c) => c.title);
    lines.push(`NOT OK: ${failed} needed check${failed === 1 ? '' : 's'} failed: ${names.join(', ')}${off}.`);
  }
  return lines.join('\n');
}
