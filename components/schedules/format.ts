// Times of a schedule: wall-clock time in its own zone and in the browser's, and a countdown.

/** "Tue 25 Nov, 02:00:00" in `timeZone` (the browser's when absent). */
export function formatInZone(iso: string | Date, timeZone?: string): string {
  const d = typeof iso === 'string' ? new Date(iso) : iso;
  try {
    return new Intl.DateTimeFormat('en-GB', {
      timeZone,
      weekday: 'short',
      day: '2-digit',
      month: 'short',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hour12: false,
    }).format(d);
  } catch {
    return d.toISOString();
  }
}

/** The browser's own time zone, e.g. Europe/Berlin. */
export function localZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/** "in 4 min 12 s", "in 2 h 05 min", "in 3 d 4 h", "due" */
export function countdown(iso: string, now: number): string {
  const ms = Date.parse(iso) - now;
  if (ms <= 0) return 'due now';
  const s = Math.ceil(ms / 1000);
  if (s < 60) return `in ${s} s`;
  if (s < 3600) return `in ${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  if (s < 86_400) return `in ${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
  return `in ${Math.floor(s / 86_400)} d ${Math.floor((s % 86_400) / 3600)} h`;
}

/** Every IANA zone the browser knows (for the zone field's suggestions). */
export function knownZones(): string[] {
  const intl = Intl as unknown as { supportedValuesOf?: (key: string) => string[] };
  try {
    return ['UTC', ...(intl.supportedValuesOf?.('timeZone') ?? [])];
  } catch {
    return ['UTC'];
  }
}
