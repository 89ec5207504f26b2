// Alert rules and firings on SQLite. writeAlerts runs in one write transaction (BEGIN IMMEDIATE: the one
// writer across processes), so its dedup check and insert cannot interleave with another process's.
import type { AuditWrite, CommandPort, ReadModel } from '../../lib/engine/ports';
import type {
  AlertFiring,
  AlertFiringFilter,
  AlertRule,
  AlertRuleInput,
  AlertWrite,
  AttemptFact,
  DeadTaskFact,
  DeadTaskQuery,
  FiredAlert,
} from '../../lib/engine/alert-types';
import type { Outcome, Page } from '../../lib/engine/types';
import { read, type Shared } from './connection';
import { enqueueIn } from './enqueue';
import * as S from './sql/alerts';
import { stmt } from './stmt';
import type { Slice } from '../shared/bind';
import { alertRule, type RuleRow } from './rows';

/** numbered parameters (?1 … ?n) bind from an object keyed by number */
const numbered = (...values: unknown[]): Record<number, unknown> => Object.fromEntries(values.map((v, i) => [i + 1, v]));

/** fired alerts are kept this long */
export const FIRINGS_KEPT_MS = 30 * 24 * 3600_000;
/** the failure-streak read looks at most this many of the newest attempts (of every command) */
export const STREAK_SCAN = 10_000;

const ruleParams = (i: AlertRuleInput, by: string, now: number) => [
  i.name,
  i.kind,
  JSON.stringify(i.params ?? {}),
  i.url,
  i.secret,
  i.format,
  i.dedupMs,
  i.enabled ? 1 : 0,
  by.slice(0, 200),
  now,
];

export function listAlertRules(shared: Shared): Promise<AlertRule[]> {
  return read(() => (stmt(shared.db, S.LIST_RULES).all() as RuleRow[]).map(alertRule));
}

export function getAlertRule(shared: Shared, id: number): Promise<AlertRule | null> {
  return read(() => {
    const r = stmt(shared.db, S.GET_RULE).get(id) as RuleRow | undefined;
    return r ? alertRule(r) : null;
  });
}

export function createAlertRule(
  shared: Shared,
  input: AlertRuleInput,
  by: string,
  audit?: AuditWrite<AlertRule | 'exists'>,
): Promise<AlertRule | 'exists'> {
  return shared.tx((_tally, now) => {
    if (stmt(shared.db, S.NAME_TAKEN).get(numbered(input.name, 0))) return 'exists' as const;
    const r = stmt(shared.db, S.INSERT_RULE).run(numbered(...ruleParams(input, by, now)));
    return alertRule(stmt(shared.db, S.GET_RULE).get(Number(r.lastInsertRowid)) as RuleRow);
  }, audit);
}

export function updateAlertRule(
  shared: Shared,
  id: number,
  input: AlertRuleInput,
  by: string,
  audit?: AuditWrite<AlertRule | 'not_found' | 'exists'>,
): Promise<AlertRule | 'not_found' | 'exists'> {
  return shared.tx((_tally, now) => {
    if (!stmt(shared.db, S.GET_RULE).get(id)) return 'not_found' as const;
    if (stmt(shared.db, S.NAME_TAKEN).get(numbered(input.name, id))) return 'exists' as const;
    stmt(shared.db, S.UPDATE_RULE).run(numbered(...ruleParams(input, by, now), id));
    return alertRule(stmt(shared.db, S.GET_RULE).get(id) as RuleRow);
  }, audit);
}

export function deleteAlertRule(shared: Shared, id: number, audit?: AuditWrite<'deleted' | 'not_found'>): Promise<'deleted' | 'not_found'> {
  return shared.tx(() => (stmt(shared.db, S.DELETE_RULE).run(id).changes === 1 ? 'deleted' : 'not_found'), audit);
}

export async function writeAlerts(shared: Shared, w: AlertWrite, audit?: AuditWrite<FiredAlert[]>): Promise<FiredAlert[]> {
  const db = shared.db;
  const ms = (d: Date | null) => (d === null ? null : d.getTime());
  const fired = await shared.tx((tally, now) => {
    const moved = new Set<number>();
    for (const c of w.cursors) {
      const r = stmt(db, S.MOVE_CURSOR).run(numbered(ms(c.toAt), c.toId, c.ruleId, ms(c.fromAt), c.fromId));
      if (r.changes === 1) moved.add(c.ruleId);
    }
    const out: FiredAlert[] = [];
    for (const f of w.firings) {
      if (f.needsCursor && (f.ruleId === null || !moved.has(f.ruleId))) continue;
      if (f.dedupMs > 0 && f.ruleId !== null && stmt(db, S.RECENT_FIRING).get(numbered(f.ruleId, f.dedupKey, now - f.dedupMs))) continue;
      const [task] = enqueueIn(db, [f.delivery], tally, now);
      const r = stmt(db, S.INSERT_FIRING).run(f.ruleId, f.ruleName, f.dedupKey, now, f.message, task!.token, f.test ? 1 : 0);
      out.push({ firingId: Number(r.lastInsertRowid), ruleId: f.ruleId, ruleName: f.ruleName, dedupKey: f.dedupKey, token: task!.token });
    }
    if (out.length) stmt(db, S.PRUNE_FIRINGS).run(now - FIRINGS_KEPT_MS);
    return out;
  }, audit);
  if (fired.length) shared.wake();
  return fired;
}

interface FiringRow {
  id: number;
  rule_id: number | null;
  rule_name: string;
  dedup_key: string;
  fired_at: number;
  message: string;
  task_token: string | null;
  status: string;
  test: number;
  task_status: string | null;
}

export function listAlertFirings(shared: Shared, f: AlertFiringFilter): Promise<Page<AlertFiring>> {
  return read(() => {
    const rows = stmt(shared.db, S.LIST_FIRINGS).all(
      numbered(f.cursor ?? Number.MAX_SAFE_INTEGER, f.ruleId ?? null, f.limit + 1),
    ) as FiringRow[];
    const more = rows.length > f.limit;
    const items = rows.slice(0, f.limit).map(
      (r): AlertFiring => ({
        id: r.id,
        ruleId: r.rule_id,
        ruleName: r.rule_name,
        dedupKey: r.dedup_key,
        firedAt: new Date(r.fired_at),
        message: r.message,
        taskToken: r.task_token,
        status: r.task_status ?? (r.task_token ? 'gone' : r.status),
        test: r.test === 1,
      }),
    );
    return { items, nextCursor: more ? items[items.length - 1]!.id : null };
  });
}

export function deadTasksSince(shared: Shared, q: DeadTaskQuery): Promise<DeadTaskFact[]> {
  return read(() => {
    const rows = stmt(shared.db, S.DEAD_SINCE).all(
      numbered(q.afterAt?.getTime() ?? 0, q.afterId ?? 0, Date.now() - q.lagMs, q.queue, q.command, q.limit),
    ) as { id: number; token: string; queue: string; command: string; finished_at: number; error_message: string | null }[];
    return rows.map((r) => ({
      id: r.id,
      token: r.token,
      queue: r.queue,
      command: r.command,
      finishedAt: new Date(r.finished_at),
      errorMessage: r.error_message,
    }));
  });
}

export function recentAttempts(shared: Shared, command: string, limit: number): Promise<AttemptFact[]> {
  return read(() => {
    const rows = stmt(shared.db, S.RECENT_ATTEMPTS).all(numbered(command, limit, STREAK_SCAN)) as {
      id: number;
      token: string;
      outcome: string;
      error_message: string | null;
    }[];
    return rows.map((r) => ({ id: r.id, token: r.token, outcome: r.outcome as Outcome, errorMessage: r.error_message }));
  });
}

/** this module's part of the CommandPort (store.ts binds it to the store's Shared) */
export const commandSlice = { createAlertRule, updateAlertRule, deleteAlertRule, writeAlerts } satisfies Slice<Shared, CommandPort>;

/** this module's part of the ReadModel (store.ts binds it to the store's Shared) */
export const readSlice = { listAlertRules, getAlertRule, listAlertFirings, deadTasksSince, recentAttempts } satisfies Slice<
  Shared,
  ReadModel
>;
