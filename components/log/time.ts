'use client';
// Absolute times on the Execution log, in local time or UTC (the choice kept in localStorage), and the
// range pickers' `datetime-local` values read in the same zone.
import { useCallback, useSyncExternalStore } from 'react';

export type TimeMode = 'local' | 'utc';

const KEY = 'readpast.log.timeMode';
const listeners = new Set<() => void>();

function read(): TimeMode {
  try {
    return window.localStorage.getItem(KEY) === 'utc' ? 'utc' : 'local';
  } catch {
    return 'local';
  }
}

/** the chosen zone for absolute times (local until changed), and its setter; remembered across visits */
export function useTimeMode(): [TimeMode, (m: TimeMode) => void] {
  const mode = useSyncExternalStore(
    (fn) => {
      listeners.add(fn);
      window.addEventListener('storage', fn);
      return () => {
        listeners.delete(fn);
        window.removeEventListener('storage', fn);
      };
    },
    read,
    () => 'local' as const,
  );
  const set = useCallback((m: TimeMode) => {
    try {
      window.localStorage.setItem(KEY, m);
    } catch {
      // private mode: the choice lasts this page only
    }
    for (const l of listeners) l();
  }, []);
  return [mode, set];
}

const p = (n: number, w = 2) => String(n).padStart(w, '0');

/** `2026-11-24 10:02:07.123` in local time or UTC */
export function formatAbsolute(iso: string | null | undefined, mode: TimeMode): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '—';
  const [y, mo, da, h, mi, s, ms] =
    mode === 'utc'
      ? [d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds()]
      : [d.getFullYear(), d.getMonth(), d.getDate(), d.getHours(), d.getMinutes(), d.getSeconds(), d.getMilliseconds()];
  return `${y}-${p(mo + 1)}-${p(da)} ${p(h)}:${p(mi)}:${p(s)}.${p(ms, 3)}`;
}

/** `UTC+01:00` for an offset in minutes east of UTC (JS's getTimezoneOffset is west, negated by the caller) */
export function offsetLabel(eastMinutes: number): string {
  if (eastMinutes === 0) return 'UTC';
  const a = Math.abs(eastMinutes);
  return `UTC${eastMinutes > 0 ? '+' : '-'}${p(Math.floor(a / 60))}:${p(a % 60)}`;
}

/** the zone's name as shown: `UTC`, or the browser's zone with its offset now (`Europe/Berlin, UTC+01:00`) */
export function zoneLabel(mode: TimeMode, at = new Date()): string {
  if (mode === 'utc') return 'UTC';
  let name = '';
  try {
    name = Intl.DateTimeFormat().resolvedOptions().timeZone ?? '';
  } catch {
    name = '';
  }
  const off = offsetLabel(-at.getTimezoneOffset());
  return name && name !== 'UTC' ? `${name}, ${off}` : off === 'UTC' ? 'UTC' : `local, ${off}`;
}

/** a `datetime-local` value read as wall time in the zone → ISO; undefined when empty or invalid */
export function inputToIso(value: string, mode: TimeMode): string | undefined {
  if (!value) return undefined;
  const d = new Date(mode === 'utc' ? `${value.length === 16 ? `${value}:00` : value}Z` : value);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

/** ISO → a `datetime-local` value (to the second) in the zone */
export function isoToInput(iso: string | null | undefined, mode: TimeMode): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return formatAbsolute(iso, mode).slice(0, 19).replace(' ', 'T');
}
