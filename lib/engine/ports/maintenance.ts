// Housekeeping any process with a pool may run (lib/engine/maintenance.ts).
import type { FireReport, PruneResult, RescueResult, TraceContext } from '../types';
import type { FiredAlert } from '../alert-types';

/** The trace context of a schedule's fire (lib/engine/maintenance.ts: its `send` span's); null: none. */
export type FireTrace = (fire: { schedule: string; queue: string; count: number }) => TraceContext | null;

/** Housekeeping any process with a pool may run; every method is idempotent across processes. */
export interface MaintenancePort {
  /** expired leases: attempt → abandoned, task → pending (run at once) or dead when out of attempts */
  rescueExpired(): Promise<RescueResult>;
  /** resume the suspended tasks whose time has come (a sleep over, an event wait timed out); how many */
  wakeDue(): Promise<number>;
  /** workers in state `running` whose heartbeat is older than `staleMs` become `lost`; returns how many */
  markLostWorkers(staleMs: number): Promise<number>;
  /** delete terminal tasks finished before `olderThan`, with their log rows and steps; events sent before it; old stopped workers */
  prune(olderThan: Date): Promise<PruneResult>;
  /** record the pending depth for the current second of the metrics series */
  sampleDepth(): Promise<void>;
  /**
   * Fire every due schedule (rules: lib/engine/schedules.ts planFires): each fire inserts its task and
   * advances the schedule in one transaction, unique per (schedule, tick), so any number of processes
   * calling at once create exactly one task per tick. `now` defaults to the store's clock (tests pass one).
   * `trace`: asked once per schedule about to fire, before its tasks are written: the trace context they store.
   */
  fireDue(now?: Date, trace?: FireTrace): Promise<FireReport[]>;
  /** judge the enabled alert rules now and record what fires (lib/engine/alerts.ts evaluateAlerts; de-duplicated) */
  evaluateAlerts(now?: Date): Promise<FiredAlert[]>;
}
