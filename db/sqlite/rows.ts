// Row shapes of the SQLite tables (a time as epoch ms, a flag as 0/1) and their mapping to the engine's
// types: the shared mappers (db/shared/rows.ts) with SQLite's column converters.
import * as R from '../shared/rows';
import * as RR from '../shared/record-rows';
import * as FR from '../shared/flow-rows';
import * as SR from '../shared/step-rows';

export { parseJson, toJson } from '../shared/rows';

/** How better-sqlite3 returns a time, a flag and a bigint column. */
export interface SqliteCols {
  time: number;
  bool: number;
  bigint: number;
}

export type TaskRow = R.TaskRow<SqliteCols>;
export type LogRow = R.LogRow<SqliteCols>;
export type QueueRow = R.QueueRow<SqliteCols>;
export type StatusRow = R.StatusRow<SqliteCols>;
export type WorkerRow = R.WorkerRow<SqliteCols>;
export type MetricRow = R.MetricRow<SqliteCols>;

export type BatchRow = RR.BatchRow<SqliteCols>;
export type StageRow = RR.StageRow<SqliteCols>;
export type ScheduleRow = RR.ScheduleRow<SqliteCols>;
export type FireRow = RR.FireRow<SqliteCols>;
export type RuleRow = RR.RuleRow<SqliteCols>;
export type AuditRow = RR.AuditRow<SqliteCols>;
export type ChangeRow = RR.ChangeRow<SqliteCols>;

export type { LinkRow, FlowEdgeRow } from '../shared/flow-rows';
export type FlowRow = FR.FlowRow<SqliteCols>;
export type FlowNodeRow = FR.FlowNodeRow<SqliteCols>;
export type FlowCountRow = FR.FlowCountRow<SqliteCols>;

const columns: R.Converters<SqliteCols> = { time: (ms) => new Date(ms), bool: (v) => v === 1, bigint: (v) => v, token: (t) => t };

export const { taskView, attemptView, queueSettings, runningView, workerView, metricPoint } = R.rowMappers(columns);
export const { batchView, scheduleFire, scheduleView, alertRule, auditRecord, queueChange } = RR.recordMappers(columns);
export const { taskLink, flowNode, flowEdge, flowSummary } = FR.flowMappers(columns);

/** `%text%` for LIKE … ESCAPE '\\' */
export function likePattern(text: string): string {
  return '%' + text.replace(/[\\%_]/g, (c) => '\\' + c) + '%';
}

export type StepRow = SR.StepRow<SqliteCols>;
export type StepListRow = SR.StepListRow<SqliteCols>;
export type EventRow = SR.EventRow<SqliteCols>;
export const { stepRecord, stepView, eventView } = SR.stepMappers(columns);
