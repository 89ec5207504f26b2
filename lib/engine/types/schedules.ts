// Schedules (recurring tasks): definitions, what a store keeps, fires.
import type { TaskStatus, TaskKind } from './tasks';

/** After downtime: `skip` drops the missed ticks; `run_once` fires once for all of them. */
export type MisfirePolicy = 'skip' | 'run_once';

/** `skip_if_running`: no fire while the previous fire's task is pending or running. */
export type OverlapPolicy = 'allow' | 'skip_if_running';

/** Where a schedule is defined: a handlers module's `schedules` export, or the dashboard / API / CLI. */
export type ScheduleSource = 'code' | 'dashboard';

/** A validated schedule: when it fires and the task each fire creates (validation.ts). */
export interface ScheduleInput {
  /** unique; the same rules as a queue name */
  name: string;
  /** 5 fields, or 6 with seconds first */
  cron: string;
  /** IANA time zone the expression is read in */
  timezone: string;
  kind: TaskKind;
  command: string;
  payload: unknown;
  queue: string;
  priority: number;
  /** null: the queue's */
  maxAttempts: number | null;
  /** null: the queue's */
  timeoutMs: number | null;
  misfire: MisfirePolicy;
  overlap: OverlapPolicy;
  enabled: boolean;
}

/** What a store keeps of a schedule besides its definition. */
export interface ScheduleRecord extends ScheduleInput {
  source: ScheduleSource;
  /** a code schedule the last worker start still declared (false: removed from code, and disabled) */
  declared: boolean;
}

/** A fire: the task a schedule created. */
export interface ScheduleFire {
  token: string;
  /** the tick it was fired for; null for a manual run (run now) */
  fireAt: Date | null;
  createdAt: Date;
  status: TaskStatus;
}

export interface ScheduleView extends ScheduleRecord {
  /** null while disabled (or when the expression fires no more) */
  nextFireAt: Date | null;
  lastFireAt: Date | null;
  lastToken: string | null;
  createdBy: string;
  createdAt: Date;
  updatedBy: string;
  updatedAt: Date;
  /** bumped by every change of the definition (not by fires): updates are compare-and-set on it */
  version: number;
  /** the newest fires, newest first (as many as the read asked for) */
  recent: ScheduleFire[];
}

/** What one check did to one due schedule (MaintenancePort.fireDue). */
export interface FireReport {
  schedule: string;
  /** tokens of the tasks created, one per tick */
  fired: { token: string; fireAt: Date }[];
  missed: number;
  overlapped: number;
  nextFireAt: Date | null;
}
