// Row shapes of durable handlers' tables (TaskSteps, Events) and their one mapping to the engine's types, given a
// dialect's column converters (rows.ts). No SQL, no driver.
import type { EventMatch, EventView, StepKind, StepRecord, StepStatus, StepView, StepWrite } from '../../lib/engine/types';
import { type Cols, type Converters, parseJson, toJson } from './rows';

export interface StepRow<C extends Cols> {
  seq: number;
  name: string;
  kind: string;
  status: string;
  attempt: number;
  tries: number;
  started_at: C['time'];
  ended_at: C['time'] | null;
  result: string | null;
  error_number: number | null;
  error_message: string | null;
  error_detail: string | null;
  wake_at: C['time'] | null;
  event: string | null;
  event_match: string | null;
  event_id: C['bigint'] | null;
}

/** LIST_STEPS adds a preview of a large result and its size. */
export interface StepListRow<C extends Cols> extends StepRow<C> {
  result_preview: string | null;
  result_bytes: number;
}

export interface EventRow<C extends Cols> {
  id: C['bigint'];
  name: string;
  payload: string | null;
  sent_at: C['time'];
  caller: string | null;
  resumed: number;
}

/** The named parameters of a step's row (`@task`, `@seq`, …): a time as the dialect writes it. */
export function stepParams<T>(taskId: number, attempt: number, s: StepWrite, time: (d: Date) => T) {
  const at = (d: Date | null) => (d === null ? null : time(d));
  return {
    task: taskId,
    seq: s.seq,
    name: s.name,
    kind: s.kind,
    status: s.status,
    attempt,
    started: time(s.startedAt),
    ended: at(s.endedAt),
    result: toJson(s.result),
    errorNumber: s.error?.number ?? null,
    errorMessage: s.error?.message ?? null,
    errorDetail: s.error?.detail ?? null,
    wake: at(s.wakeAt),
    event: s.event,
    match: s.match === null ? null : JSON.stringify(s.match),
  };
}

export function stepMappers<C extends Cols>(c: Converters<C>) {
  const at = (v: C['time'] | null): Date | null => (v === null ? null : c.time(v));
  function stepRecord(r: StepRow<C>): StepRecord {
    return {
      seq: r.seq,
      name: r.name,
      kind: r.kind as StepKind,
      status: r.status as StepStatus,
      result: parseJson(r.result),
      error: r.error_message === null ? null : { number: r.error_number, message: r.error_message, detail: r.error_detail },
      attempt: r.attempt,
      tries: r.tries,
      startedAt: c.time(r.started_at),
      endedAt: at(r.ended_at),
      wakeAt: at(r.wake_at),
      event: r.event,
      match: r.event_match === null ? null : (JSON.parse(r.event_match) as EventMatch),
      eventId: r.event_id === null ? null : c.bigint(r.event_id),
    };
  }
  function stepView(r: StepListRow<C>): StepView {
    return { ...stepRecord(r), resultPreview: r.result_preview, resultBytes: r.result_bytes };
  }
  function eventView(r: EventRow<C>): EventView {
    return {
      id: c.bigint(r.id),
      name: r.name,
      payload: parseJson(r.payload),
      sentAt: c.time(r.sent_at),
      caller: r.caller,
      resumed: r.resumed,
    };
  }
  return { stepRecord, stepView, eventView };
}
