// Alert rules as a pure function of facts: which rules fire now, each firing with a dedup key (one
// firing per rule and key within the rule's window), its message and its delivery task (body and
// signature computed here, so the secret never reaches a task payload). `evaluateAlerts` reads the
// facts the enabled rules need through the ports and writes the firings in one store transaction
// (CommandPort.writeAlerts: de-duplicated there, so processes evaluating at once fire once); any
// process with a pool runs it every few seconds (maintenance.ts).
import { createHmac } from 'node:crypto';
import {
  ALERT_DELIVERY_ATTEMPTS,
  ALERT_HANDLER,
  ALERT_KIND_INFO,
  ALERT_QUEUE,
  MAX_STREAK,
  type AlertRule,
  type AttemptFact,
  type CursorMove,
  type DeadTaskFact,
  type FiredAlert,
  type FiringWrite,
  type AlertWrite,
} from './alert-types';
import type { CommandPort, ReadModel } from './ports';
import { servesQueue, type Outcome, type PendingBreakdown, type ScheduleView } from './types';

/** a settlement still committing is not missed: dead tasks are read up to this long ago */
export const DEAD_LAG_MS = 2_000;
/** dead tasks read per rule and evaluation (the cursor moves on; the rest come next time) */
export const DEAD_READ_LIMIT = 200;
/** default lateness of a schedule's tick before it counts as missed */
export const DEFAULT_SCHEDULE_GRACE_MS = 60_000;

export const FAILED_OUTCOMES: readonly Outcome[] = ['failed', 'timed_out', 'abandoned'];

/** What the rules are judged on (read by `evaluateAlerts`, or made up by a test). */
export interface AlertFacts {
  now: Date;
  /** per rule id: dead tasks after the rule's cursor, oldest first (task_dead rules) */
  dead: Map<number, DeadTaskFact[]>;
  /** per rule id: the command's newest ended attempts, newest first (failure_streak rules) */
  attempts: Map<number, AttemptFact[]>;
  pending: PendingBreakdown[];
  /** live or not, and which queues each serves (null: every queue) */
  workers: { live: boolean; queues: readonly string[] | null }[];
  schedules: { name: string; enabled: boolean; nextFireAt: Date | null }[];
}

/** A firing as the rules decide it (before its delivery is built). */
export interface Firing {
  rule: AlertRule;
  key: string;
  message: string;
  details: Record<string, unknown>;
  needsCursor: boolean;
}

export interface AlertPlan {
  firings: Firing[];
  cursors: CursorMove[];
}

export { ALERT_KIND_INFO, MAX_STREAK };

const ms = (d: Date) => d.getTime();

/** `1 h 5 min`, `42 s` */
export function age(msValue: number): string {
  const s = Math.max(0, Math.round(msValue / 1000));
  if (s < 120) return `${s} s`;
  const m = Math.round(s / 60);
  if (m < 120) return `${m} min`;
  const h = Math.floor(m / 60);
  return `${h} h${m % 60 ? ` ${m % 60} min` : ''}`;
}

/** a queue the rule looks at: its own, or any but the internal alert queue (a failing webhook must not alert itself) */
function watches(rule: AlertRule, queue: string): boolean {
  if (rule.params.queue) return rule.params.queue === queue;
  return queue !== ALERT_QUEUE;
}

function planRule(rule: AlertRule, f: AlertFacts, out: AlertPlan): void {
  const p = rule.params;
  const fire = (key: string, message: string, details: Record<string, unknown>, needsCursor = false) =>
    out.firings.push({ rule, key, message, details, needsCursor });
  switch (rule.kind) {
    case 'task_dead': {
      const dead = f.dead.get(rule.id) ?? [];
      if (!dead.length) return;
      const last = dead[dead.length - 1]!;
      out.cursors.push({ ruleId: rule.id, fromAt: rule.cursorAt, fromId: rule.cursorId, toAt: last.finishedAt, toId: last.id });
      const groups = new Map<string, DeadTaskFact[]>();
      for (const t of dead) {
        if (!watches(rule, t.queue) || (p.command && p.command !== t.command)) continue;
        const key = `dead:${t.queue}:${t.command.slice(0, 200)}`;
        groups.set(key, [...(groups.get(key) ?? []), t]);
      }
      for (const [key, ts] of groups) {
        const t = ts[0]!;
        const more = ts.length > 1 ? ` (and ${ts.length - 1} more)` : '';
        const why = t.errorMessage ? `: ${t.errorMessage.slice(0, 300)}` : '';
        fire(
          key,
          `task ${t.token} (${t.queue} / ${t.command}) went dead${why}${more}`,
          {
            queue: t.queue,
            command: t.command,
            tokens: ts.slice(0, 20).map((x) => x.token),
            count: ts.length,
          },
          true,
        );
      }
      return;
    }
    case 'failure_streak': {
      const n = p.count ?? 0;
      const attempts = f.attempts.get(rule.id) ?? [];
      const newest = attempts[0];
      if (!newest || !p.command || n < 1) return;
      if (rule.cursorId !== null && newest.id <= rule.cursorId) return; // nothing new since the last look
      out.cursors.push({ ruleId: rule.id, fromAt: rule.cursorAt, fromId: rule.cursorId, toAt: rule.cursorAt, toId: newest.id });
      const streak = attempts.slice(0, n);
      if (streak.length < n || !streak.every((a) => FAILED_OUTCOMES.includes(a.outcome))) return;
      const why = newest.errorMessage ? ` (last: ${newest.errorMessage.slice(0, 300)})` : '';
      fire(
        `streak:${p.command.slice(0, 200)}`,
        `${p.command} failed ${n} times in a row${why}`,
        {
          command: p.command,
          count: n,
          tokens: streak.map((a) => a.token),
        },
        true,
      );
      return;
    }
    case 'ready_age': {
      const limit = p.thresholdMs ?? 0;
      for (const q of f.pending) {
        if (!watches(rule, q.queue) || !q.oldestReadyAt) continue;
        const waited = ms(f.now) - ms(q.oldestReadyAt);
        if (waited <= limit) continue;
        fire(`ready_age:${q.queue}`, `queue ${q.queue}: the oldest ready task has waited ${age(waited)} (threshold ${age(limit)})`, {
          queue: q.queue,
          ready: q.ready,
          oldestReadyAt: q.oldestReadyAt.toISOString(),
          waitedMs: waited,
          thresholdMs: limit,
        });
      }
      return;
    }
    case 'no_worker': {
      for (const q of f.pending) {
        if (!watches(rule, q.queue) || q.ready < 1) continue;
        const served = f.workers.some((w) => w.live && servesQueue(w.queues, q.queue));
        if (served) continue;
        fire(`no_worker:${q.queue}`, `queue ${q.queue} has ${q.ready} ready task${q.ready === 1 ? '' : 's'} and no live worker serves it`, {
          queue: q.queue,
          ready: q.ready,
        });
      }
      return;
    }
    case 'schedule_missed': {
      const grace = p.thresholdMs ?? DEFAULT_SCHEDULE_GRACE_MS;
      for (const s of f.schedules) {
        if (p.schedule && p.schedule !== s.name) continue;
        if (!s.enabled || !s.nextFireAt) continue;
        const late = ms(f.now) - ms(s.nextFireAt);
        if (late <= grace) continue;
        fire(`schedule:${s.name}`, `schedule ${s.name} missed its tick at ${s.nextFireAt.toISOString()} (${age(late)} late)`, {
          schedule: s.name,
          nextFireAt: s.nextFireAt.toISOString(),
          lateMs: late,
        });
      }
      return;
    }
  }
}

/** Which of the (enabled) rules fire on these facts, and where their cursors move. Pure. */
export function planAlerts(rules: readonly AlertRule[], facts: AlertFacts): AlertPlan {
  const out: AlertPlan = { firings: [], cursors: [] };
  for (const r of rules) if (r.enabled) planRule(r, facts, out);
  return out;
}

// ---- delivery ---------------------------------------------------------------------------------

/** `sha256=<hex HMAC-SHA256 of the raw body>` */
export function signBody(secret: string, body: string): string {
  return 'sha256=' + createHmac('sha256', secret).update(body, 'utf8').digest('hex');
}

/** The webhook body: readpast's JSON, or `{text}` for Slack / Teams incoming webhooks. */
export function alertBody(f: Firing, firedAt: Date, test: boolean): string {
  const r = f.rule;
  if (r.format === 'slack') {
    return JSON.stringify({ text: `${test ? '[test] ' : ''}readpast alert · ${r.name}: ${f.message}` });
  }
  return JSON.stringify({
    source: 'readpast',
    rule: r.name,
    ruleId: r.id,
    kind: r.kind,
    key: f.key,
    message: f.message,
    firedAt: firedAt.toISOString(),
    test,
    details: f.details,
  });
}

/**
 * The firing as the store writes it: its delivery task carries the body and signature, never the secret nor
 * the webhook's URL (a Slack or Teams URL is a credential; the task is readable by every dashboard viewer).
 */
export function firingWrite(f: Firing, firedAt: Date, test = false): FiringWrite {
  const body = alertBody(f, firedAt, test);
  return {
    ruleId: f.rule.id,
    ruleName: f.rule.name,
    dedupKey: f.key,
    dedupMs: test ? 0 : f.rule.dedupMs,
    message: f.message,
    test,
    needsCursor: f.needsCursor,
    delivery: {
      kind: 'handler',
      command: ALERT_HANDLER,
      queue: ALERT_QUEUE,
      maxAttempts: ALERT_DELIVERY_ATTEMPTS,
      payload: {
        rule: f.rule.name,
        ruleId: f.rule.id,
        key: f.key,
        contentType: 'application/json',
        body,
        signature: f.rule.secret ? signBody(f.rule.secret, body) : null,
      },
    },
  };
}

/** A test send of one rule: fires now, whatever the facts, never suppressed by the window. */
export function testFiring(rule: AlertRule, now = new Date()): FiringWrite {
  return firingWrite(
    {
      rule,
      key: 'test',
      message: `test of alert rule ${rule.name} (${ALERT_KIND_INFO[rule.kind].label})`,
      details: {},
      needsCursor: false,
    },
    now,
    true,
  );
}

// ---- one evaluation over the ports ------------------------------------------------------------

export interface AlertPorts {
  reads: Pick<ReadModel, 'listAlertRules' | 'deadTasksSince' | 'recentAttempts' | 'pendingBreakdown' | 'listWorkers' | 'listSchedules'>;
  commands: Pick<CommandPort, 'writeAlerts'>;
}

/** Read what the enabled rules need, plan, and write the firings (de-duplicated by the store). */
export async function evaluateAlerts(ports: AlertPorts, now = new Date()): Promise<FiredAlert[]> {
  const rules = (await ports.reads.listAlertRules()).filter((r) => r.enabled);
  if (!rules.length) return [];
  const kinds = new Set(rules.map((r) => r.kind));
  const facts: AlertFacts = { now, dead: new Map(), attempts: new Map(), pending: [], workers: [], schedules: [] };
  for (const r of rules) {
    if (r.kind === 'task_dead') {
      facts.dead.set(
        r.id,
        await ports.reads.deadTasksSince({
          afterAt: r.cursorAt ?? r.createdAt,
          afterId: r.cursorId ?? 0,
          queue: r.params.queue ?? null,
          command: r.params.command ?? null,
          lagMs: DEAD_LAG_MS,
          limit: DEAD_READ_LIMIT,
        }),
      );
    } else if (r.kind === 'failure_streak' && r.params.command && r.params.count) {
      facts.attempts.set(r.id, await ports.reads.recentAttempts(r.params.command, Math.min(r.params.count, MAX_STREAK)));
    }
  }
  if (kinds.has('ready_age') || kinds.has('no_worker')) facts.pending = await ports.reads.pendingBreakdown();
  if (kinds.has('no_worker')) {
    facts.workers = (await ports.reads.listWorkers()).map((w) => ({ live: w.state === 'running', queues: w.queues }));
  }
  if (kinds.has('schedule_missed')) {
    facts.schedules = (await ports.reads.listSchedules(0)).map((s: ScheduleView) => ({
      name: s.name,
      enabled: s.enabled,
      nextFireAt: s.nextFireAt,
    }));
  }
  const plan = planAlerts(rules, facts);
  if (!plan.firings.length && !plan.cursors.length) return [];
  return ports.commands.writeAlerts({ firings: plan.firings.map((f) => firingWrite(f, now)), cursors: plan.cursors });
}
