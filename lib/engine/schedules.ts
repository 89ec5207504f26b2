// Schedule rules, written once for every store: what a cron expression means and when it fires
// next (croner: 5 fields, or 6 with seconds first; IANA time zones, DST gaps and overlaps), and what
// one check of a due schedule does — fire its ticks, drop the missed ones (misfire policy) or hold
// back while the previous fire still runs (overlap policy). No SQL and no clock: `now` is an argument.
// Imports nothing of the server, so the dashboard's form previews fire times with the same code.
import { Cron } from 'croner';
import cronstrue from 'cronstrue';
import type { MisfirePolicy, OverlapPolicy } from './types';

/** croner's mode: 5 fields (minute first), or 6 with seconds first; no year field. */
const MODE = '5-or-6-parts' as const;

/**
 * A late tick still fires when it is at most this late: the schedule's interval at that tick,
 * but never less than MIN_GRACE_MS (a check runs about once a second) nor more than MAX_GRACE_MS.
 * A tick later than that was missed (every process was down or stalled): see `planFires`.
 */
export const MIN_GRACE_MS = 5_000;
export const MAX_GRACE_MS = 60_000;

/** The longest cron expression accepted, in characters. */
export const MAX_CRON_LENGTH = 200;

const compiled = new Map<string, Cron>();

/** The expression compiled for a zone (cached); throws croner's error for a bad expression. */
function cronOf(expr: string, timezone: string): Cron {
  const key = timezone + '\u0000' + expr;
  let c = compiled.get(key);
  if (!c) {
    c = new Cron(expr, { timezone, mode: MODE });
    if (compiled.size > 500) compiled.clear();
    compiled.set(key, c);
  }
  return c;
}

/** The canonical IANA name of a time zone (`utc` → `UTC`), or null when it is none. */
export function canonicalZone(tz: string): string | null {
  if (!tz || tz.length > 64) return null;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: tz }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/** Why an expression is not a cron expression readpast accepts, or null when it is one. */
export function cronProblem(expr: string): string | null {
  const text = expr.trim();
  if (!text) return 'required';
  if (text.length > MAX_CRON_LENGTH) return `longer than ${MAX_CRON_LENGTH} characters`;
  const fields = text.split(/\s+/).length;
  if (!text.startsWith('@') && fields !== 5 && fields !== 6) {
    const has = `has ${fields} field${fields === 1 ? '' : 's'}`;
    return `${has}; a cron expression has 5 (minute hour day month weekday), or 6 with seconds first`;
  }
  let c: Cron;
  try {
    c = cronOf(text, 'UTC');
  } catch (err) {
    const message = err instanceof Error ? err.message.replace(/^CronPattern:\s*/, '') : String(err);
    return `not a cron expression (5 fields, or 6 with seconds first): ${message}`;
  }
  // over the next eight years: every 5- or 6-field expression that can fire at all does (Feb 29)
  if (!c.nextRun(new Date(Date.UTC(2000, 0, 1)))) return 'never fires (no date matches every field)';
  return null;
}

/** The next `n` fire times strictly after `after`, in the schedule's zone (fewer if it stops firing). */
export function nextFires(expr: string, timezone: string, after: Date, n: number): Date[] {
  const out: Date[] = [];
  const c = cronOf(expr, timezone);
  let t: Date | null = after;
  while (out.length < n && (t = c.nextRun(t))) out.push(t);
  return out;
}

/** The first fire time strictly after `after`, or null when the expression never fires again. */
export function nextFireAfter(expr: string, timezone: string, after: Date): Date | null {
  return cronOf(expr, timezone).nextRun(after);
}

/** The expression in words ("Every 5 minutes", "At 02:00, Monday through Friday"); the expression itself when it has none. */
export function describeCron(expr: string): string {
  try {
    return cronstrue.toString(expr, { use24HourTimeFormat: true, throwExceptionOnParseError: true });
  } catch {
    return expr;
  }
}

/** How late tick `t` may fire when the next tick is `next` (null: none). */
export function graceMs(t: Date, next: Date | null): number {
  const interval = next ? next.getTime() - t.getTime() : MAX_GRACE_MS;
  return Math.min(MAX_GRACE_MS, Math.max(MIN_GRACE_MS, interval));
}

/** What a check needs to know of a schedule. */
export interface FireState {
  cron: string;
  timezone: string;
  misfire: MisfirePolicy;
  overlap: OverlapPolicy;
  /** the first tick not yet fired nor skipped */
  nextFireAt: Date;
}

/** What one check does to one schedule. */
export interface FirePlan {
  /** the ticks to fire now, oldest first: one task each, unique per (schedule, tick) */
  fires: Date[];
  /** due ticks not fired because they were missed (later than their grace) — counted within the last minute */
  missed: number;
  /** set when ticks older than the last minute were missed too: the oldest of them */
  missedSince: Date | null;
  /** due ticks held back because the previous fire's task was still pending or running (skip_if_running) */
  overlapped: number;
  /** the first tick after `now`: every due tick is consumed by this check. Null: it never fires again. */
  next: Date | null;
}

/**
 * One check of a schedule at `now`. Every tick from `nextFireAt` up to `now` is due; each is either
 * fired or dropped, and the next fire time moves past `now`:
 *
 * - a due tick no later than its grace (`graceMs`) fires — also several in one check, when the
 *   checks were held up for a few of a fast schedule's ticks;
 * - a later one was missed (every process was down): `skip` drops it; `run_once` fires once for
 *   all the due ticks, for the latest of them;
 * - `skip_if_running` fires nothing while the previous fire's task is pending or running
 *   (`previousActive`), and at most one tick per check otherwise (the latest).
 */
export function planFires(s: FireState, now: Date, previousActive: boolean): FirePlan {
  const c = cronOf(s.cron, s.timezone);
  const next = c.nextRun(now);
  if (s.nextFireAt.getTime() > now.getTime()) return { fires: [], missed: 0, missedSince: null, overlapped: 0, next: s.nextFireAt };

  // ticks more than MAX_GRACE_MS old are missed whatever their grace: only the last minute is enumerated
  const windowStart = now.getTime() - MAX_GRACE_MS;
  const older = s.nextFireAt.getTime() < windowStart;
  const due: Date[] = [];
  let t: Date | null = older ? c.nextRun(new Date(windowStart - 1)) : s.nextFireAt;
  while (t && t.getTime() <= now.getTime()) {
    due.push(t);
    t = c.nextRun(t);
  }
  const onTime: Date[] = [];
  let missed = 0;
  due.forEach((tick, i) => {
    const after = due[i + 1] ?? next;
    if (now.getTime() - tick.getTime() <= graceMs(tick, after)) onTime.push(tick);
    else missed++;
  });

  let fires = onTime;
  if (s.misfire === 'run_once' && (missed > 0 || older)) {
    // the latest due tick stands for all of them
    const latest = due.length ? due[due.length - 1]! : latestTickBefore(c, now);
    fires = latest ? [latest] : [];
  }
  let overlapped = 0;
  if (s.overlap === 'skip_if_running') {
    if (previousActive) {
      overlapped = fires.length;
      fires = [];
    } else if (fires.length > 1) {
      overlapped = fires.length - 1;
      fires = fires.slice(-1);
    }
  }
  if (s.misfire === 'run_once' && fires.length) missed = 0;
  return { fires, missed, missedSince: older ? s.nextFireAt : null, overlapped, next };
}

/** The latest tick at or before `now` (croner's previousRuns excludes its whole-second reference). */
function latestTickBefore(c: Cron, now: Date): Date | null {
  const ref = new Date(Math.floor(now.getTime() / 1000) * 1000 + 1000);
  return c.previousRuns(1, ref)[0] ?? null;
}
