// Human-readable times, durations and numbers for the dashboard.

/** "850 ms", "12.3 s", "4 min 05 s", "2 h 07 min", "3 d 4 h" */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return '—';
  const neg = ms < 0;
  const a = Math.abs(ms);
  let s: string;
  if (a < 1000) s = `${Math.round(a)} ms`;
  else if (a < 10_000) s = `${(a / 1000).toFixed(1)} s`;
  else if (a < 60_000) s = `${Math.floor(a / 1000)} s`;
  else if (a < 3_600_000) s = `${Math.floor(a / 60_000)} min ${String(Math.floor((a % 60_000) / 1000)).padStart(2, '0')} s`;
  else if (a < 86_400_000) s = `${Math.floor(a / 3_600_000)} h ${String(Math.floor((a % 3_600_000) / 60_000)).padStart(2, '0')} min`;
  else s = `${Math.floor(a / 86_400_000)} d ${Math.floor((a % 86_400_000) / 3_600_000)} h`;
  return neg ? `-${s}` : s;
}

/** A compact age: "now", "3 s", "4 min", "2 h", "5 d". */
export function formatAge(ms: number): string {
  const a = Math.abs(ms);
  if (a < 1000) return 'now';
  if (a < 60_000) return `${Math.floor(a / 1000)} s`;
  if (a < 3_600_000) return `${Math.floor(a / 60_000)} min`;
  if (a < 86_400_000) return `${Math.floor(a / 3_600_000)} h`;
  return `${Math.floor(a / 86_400_000)} d`;
}

/** "3 s ago", "in 2 min", "just now" */
export function formatRelative(iso: string | null | undefined, now: number): string {
  if (!iso) return '—';
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return '—';
  const diff = now - t;
  if (Math.abs(diff) < 1000) return 'just now';
  return diff > 0 ? `${formatAge(diff)} ago` : `in ${formatAge(diff)}`;
}

export function formatNumber(n: number | null | undefined): string {
  if (n === null || n === undefined) return '—';
  return n.toLocaleString('en-US');
}

/** Local date-time, e.g. "2025-11-22 03:41:07" */
export function formatLocal(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '—';
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/**
 * The part of a token that tasks created together do not share. Tokens are time-ordered (lib/engine/tokens.ts):
 * SQLite's (v7) start with the time, so their end is shown; SQL Server's (v8) end with it, so their start is.
 */
export function shortToken(token: string): string {
  return token[14] === '8' ? `${token.slice(0, 8)}…` : `…${token.slice(-8)}`;
}

/** `datetime-local` value (local wall time) → ISO with offset, or undefined when empty/invalid. */
export function localInputToIso(value: string): string | undefined {
  if (!value) return undefined;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

/** ISO → `datetime-local` value in local wall time. */
export function isoToLocalInput(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

export function prettyJson(v: unknown): string {
  if (v === undefined) return '';
  try {
    return JSON.stringify(v, null, 2) ?? String(v);
  } catch {
    return String(v);
  }
}
