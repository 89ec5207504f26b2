// Alert rules and firings on SQL Server. writeAlerts is one batch in one transaction (sql/alerts.ts
// WRITE_ALERTS): cursors compare-and-set, the dedup check under UPDLOCK, HOLDLOCK, the firing and its
// delivery task inserted together — so processes evaluating at once record each firing once.
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
import { sql, type Param, type Shared } from './connection';
import { alertRule, isoUtc, type RuleRow, toJson, token } from './rows';
import * as S from './sql/alerts';
import type { CommandPort, ReadModel } from '../../lib/engine/ports';
import type { Slice } from '../shared/bind';
import { auditedCommand } from './audit';
import { newToken } from './tokens';

/** the failure-streak read looks at most this many of the newest attempts (of every command) */
export const STREAK_SCAN = 10_000;

const NAME = sql.NVarChar(64);

const ruleParams = (i: AlertRuleInput, by: string): Param[] => [
  ['name', NAME, i.name],
  ['kind', sql.VarChar(20), i.kind],
  ['params', sql.NVarChar(4000), JSON.stringify(i.params ?? {})],
  ['url', sql.NVarChar(2000), i.url],
  ['secret', sql.NVarChar(400), i.secret],
  ['format', sql.VarChar(10), i.format],
  ['dedup_ms', sql.Int, i.dedupMs],
  ['enabled', sql.Bit, i.enabled],
  ['by', sql.NVarChar(200), by.slice(0, 200)],
];

export async function listAlertRules(shared: Shared): Promise<AlertRule[]> {
  return (await shared.query<RuleRow>(S.LIST_RULES)).recordset.map(alertRule);
}

export async function getAlertRule(shared: Shared, id: number): Promise<AlertRule | null> {
  const r = (await shared.query<RuleRow>(S.GET_RULE, [['id', sql.Int, id]])).recordset[0];
  return r ? alertRule(r) : null;
}

export async function createAlertRule(shared: Shared, input: AlertRuleInput, by: string): Promise<AlertRule | 'exists'> {
  const r = await shared.write<{ id: number }>(S.CREATE_RULE, ruleParams(input, by));
  const id = r.recordset[0]?.id;
  if (id === undefined) return 'exists';
  return (await getAlertRule(shared, id))!;
}

export async function updateAlertRule(
  shared: Shared,
  id: number,
  input: AlertRuleInput,
  by: string,
): Promise<AlertRule | 'not_found' | 'exists'> {
  const r = await shared.write<{ result: string }>(S.UPDATE_RULE, [...ruleParams(input, by), ['id', sql.Int, id]]);
  const result = r.recordset[0]?.result;
  if (result === 'exists') return 'exists';
  if (result !== 'updated') return 'not_found';
  return (await getAlertRule(shared, id)) ?? 'not_found';
}

export async function deleteAlertRule(shared: Shared, id: number): Promise<'deleted' | 'not_found'> {
  const r = await shared.write<{ deleted: number }>(S.DELETE_RULE, [['id', sql.Int, id]]);
  return r.recordset[0]?.deleted === 1 ? 'deleted' : 'not_found';
}

export async function writeAlerts(shared: Shared, w: AlertWrite): Promise<FiredAlert[]> {
  const iso = (d: Date | null) => (d === null ? null : isoUtc(d));
  const fires = w.firings.map((f, ord) => ({
    ord,
    token: newToken(),
    ruleId: f.ruleId,
    ruleName: f.ruleName.slice(0, 64),
    key: f.dedupKey.slice(0, 400),
    dedupMs: f.dedupMs,
    message: f.message.slice(0, 2000),
    test: f.test ? 1 : 0,
    needsCursor: f.needsCursor ? 1 : 0,
    queue: f.delivery.queue,
    command: f.delivery.command,
    payload: toJson(f.delivery.payload),
    maxAttempts: f.delivery.maxAttempts ?? 5,
  }));
  const cursors = w.cursors.map((c) => ({
    ruleId: c.ruleId,
    fromAt: iso(c.fromAt),
    fromId: c.fromId,
    toAt: iso(c.toAt),
    toId: c.toId,
  }));
  const r = await shared.write<{ ord: number; token: string; firing_id: string | number }>(S.WRITE_ALERTS, [
    ['fires', sql.NVarChar(sql.MAX), JSON.stringify(fires)],
    ['cursors', sql.NVarChar(sql.MAX), JSON.stringify(cursors)],
  ]);
  const sets = r.recordsets as unknown as { ord: number; token: string; firing_id: string | number }[][];
  const rows = sets[sets.length - 1] ?? [];
  const out = rows.map((x): FiredAlert => {
    const f = fires[x.ord]!;
    return { firingId: Number(x.firing_id), ruleId: f.ruleId, ruleName: f.ruleName, dedupKey: f.key, token: token(x.token) };
  });
  if (out.length) shared.wake();
  return out;
}

interface FiringRow {
  id: string | number;
  rule_id: number | null;
  rule_name: string;
  dedup_key: string;
  fired_at: Date;
  message: string;
  task_token: string | null;
  status: string;
  test: boolean;
  task_status: string | null;
}

export async function listAlertFirings(shared: Shared, f: AlertFiringFilter): Promise<Page<AlertFiring>> {
  const r = await shared.query<FiringRow>(S.LIST_FIRINGS, [
    ['limit', sql.Int, f.limit + 1],
    ['cursor', sql.BigInt, f.cursor ?? Number.MAX_SAFE_INTEGER],
    ['rule_id', sql.Int, f.ruleId ?? null],
  ]);
  const rows = r.recordset;
  const more = rows.length > f.limit;
  const items = rows.slice(0, f.limit).map(
    (x): AlertFiring => ({
      id: Number(x.id),
      ruleId: x.rule_id,
      ruleName: x.rule_name,
      dedupKey: x.dedup_key,
      firedAt: x.fired_at,
      message: x.message,
      taskToken: x.task_token === null ? null : token(x.task_token),
      status: x.task_status ?? (x.task_token ? 'gone' : x.status),
      test: x.test === true,
    }),
  );
  return { items, nextCursor: more ? items[items.length - 1]!.id : null };
}

export async function deadTasksSince(shared: Shared, q: DeadTaskQuery): Promise<DeadTaskFact[]> {
  const r = await shared.query<{
    id: string | number;
    token: string;
    queue: string;
    command: string;
    finished_at: Date;
    error_message: string | null;
  }>(S.DEAD_SINCE, [
    ['limit', sql.Int, q.limit],
    ['after_at', sql.DateTime2(3), q.afterAt ?? new Date(0)],
    ['after_id', sql.BigInt, q.afterId ?? 0],
    ['lag_ms', sql.Int, q.lagMs],
    ['queue', NAME, q.queue],
    ['command', sql.NVarChar(sql.MAX), q.command],
  ]);
  return r.recordset.map((x) => ({
    id: Number(x.id),
    token: token(x.token),
    queue: x.queue,
    command: x.command,
    finishedAt: x.finished_at,
    errorMessage: x.error_message,
  }));
}

export async function recentAttempts(shared: Shared, command: string, limit: number): Promise<AttemptFact[]> {
  const r = await shared.query<{ id: string | number; token: string | null; outcome: string; error_message: string | null }>(
    S.RECENT_ATTEMPTS,
    [
      ['limit', sql.Int, limit],
      ['scan', sql.BigInt, STREAK_SCAN],
      ['command', sql.NVarChar(sql.MAX), command],
    ],
  );
  return r.recordset.map((x) => ({
    id: Number(x.id),
    token: x.token ? token(x.token) : '',
    outcome: x.outcome as Outcome,
    errorMessage: x.error_message,
  }));
}

/** this module's part of the CommandPort (store.ts binds it to the store's Shared) */
export const commandSlice = {
  createAlertRule: auditedCommand(createAlertRule, 2),
  updateAlertRule: auditedCommand(updateAlertRule, 3),
  deleteAlertRule: auditedCommand(deleteAlertRule, 1),
  writeAlerts: auditedCommand(writeAlerts, 1),
} satisfies Slice<Shared, CommandPort>;

/** this module's part of the ReadModel (store.ts binds it to the store's Shared) */
export const readSlice = { listAlertRules, getAlertRule, listAlertFirings, deadTasksSince, recentAttempts } satisfies Slice<
  Shared,
  ReadModel
>;
