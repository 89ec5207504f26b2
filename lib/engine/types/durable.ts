// Durable handlers: steps recorded against their task (TaskSteps), sleeps and waits for events that suspend it,
// and the events that resume it.
//
// THE RULES
// - A step (`ctx.step`, `ctx.transaction`, `ctx.sleep`, `ctx.waitForEvent`) is numbered by the order the handler
//   calls it (its `seq`, from 1). A step recorded `succeeded` returns its recorded result when the task runs again,
//   without running; a step recorded `failed` (or not recorded) runs. A run that calls a different name or kind at
//   a recorded `seq`, a name twice, a step inside a step or more than MAX_STEPS_PER_TASK fails its attempt, naming
//   the step; it is not retried (the code changed, or misuses steps: see lib/engine/durable.ts).
// - A suspended task holds no worker, token, key slot or rate slot: its attempt ended (outcome `suspended`, not a
//   failure: `Tasks.suspensions` counts them, and attempts less suspensions is what max attempts bounds). Its status
//   is `waiting` — the state the claim never takes, as for a task whose parents have not succeeded — with
//   `Tasks.suspended` saying why (`sleep`, `event`) and `run_after` saying until when (a sleep's wake time, an event
//   wait's timeout; NO_TIMEOUT: none). Whatever resumes it (its time passing, the event, an operator's wake) makes
//   its step `succeeded` (a sleep: null; an event: its payload; a timeout or a wake: null) and the task `pending`,
//   due now, in one transaction; its next attempt replays what was recorded and goes on.
// - An event resumes every task waiting for its name whose match (a flat object of scalars) the payload contains
//   at the time it is sent — and, when a task suspends on it, an event sent since that attempt started (so an event
//   sent while the task ran towards its wait is not missed). Events are kept with the tasks' retention.
import type { ErrorInfo } from './tasks';

export const STEP_KINDS = ['step', 'transaction', 'sleep', 'event'] as const;
export type StepKind = (typeof STEP_KINDS)[number];

/** `sleeping` / `waiting`: the step its task is suspended on; `succeeded` is replayed, `failed` runs again. */
export const STEP_STATUSES = ['succeeded', 'failed', 'sleeping', 'waiting'] as const;
export type StepStatus = (typeof STEP_STATUSES)[number];

/** A value an event match compares: the payload's top-level field of that name must equal it. */
export type MatchValue = string | number | boolean | null;
export type EventMatch = Record<string, MatchValue>;

/** The run-after of an event wait with no timeout (9999-12-31): never woken by time. */
export const NO_TIMEOUT = new Date(Date.UTC(9999, 11, 31));

/** One step as recorded. */
export interface StepRecord {
  seq: number;
  name: string;
  kind: StepKind;
  status: StepStatus;
  /** its JSON result (a succeeded step), null otherwise */
  result: unknown;
  error: ErrorInfo | null;
  /** the attempt that last ran it (or suspended on it) */
  attempt: number;
  /** how many times it ran (a failed step runs again) */
  tries: number;
  startedAt: Date;
  endedAt: Date | null;
  /** a sleep's wake time; an event wait's timeout (null: none) */
  wakeAt: Date | null;
  /** an event wait: the event's name and match */
  event: string | null;
  match: EventMatch | null;
  /** the event that resumed it */
  eventId: number | null;
}

/** What a worker writes about a step (fenced on its attempt): the attempt is the writer's. */
export interface StepWrite {
  seq: number;
  name: string;
  kind: StepKind;
  status: StepStatus;
  result: unknown;
  error: ErrorInfo | null;
  startedAt: Date;
  endedAt: Date | null;
  wakeAt: Date | null;
  event: string | null;
  match: EventMatch | null;
}

/** What an attempt reads before its first step: the recorded steps, and how many attempts ended suspended. */
export interface StepsLoaded {
  suspensions: number;
  steps: StepRecord[];
}

/** A step on the task's page: a large result is previewed (resultBytes tells its size). */
export interface StepView extends Omit<StepRecord, 'result'> {
  /** the result, when at most STEP_RESULT_SHOWN bytes; else null with a preview */
  result: unknown;
  resultPreview: string | null;
  resultBytes: number;
}

/** Results larger than this (bytes of JSON) are shown as a preview in a task's step list. */
export const STEP_RESULT_SHOWN = 4096;

/** A validated event to send. */
export interface SendEventInput {
  name: string;
  payload: unknown;
  /** who sent it (cli, api, dashboard, a user name) */
  caller: string | null;
}

export interface SendEventResult {
  id: number;
  /** the tasks it resumed */
  resumed: number;
  tokens: string[];
}

export interface EventView {
  id: number;
  name: string;
  payload: unknown;
  sentAt: Date;
  caller: string | null;
  /** how many waiting tasks it resumed */
  resumed: number;
}

/** A task an event resumed (while the task is kept). */
export interface ResumedTask {
  token: string;
  queue: string;
  command: string;
  status: string;
  step: string;
}

export interface EventDetail extends EventView {
  tasks: ResumedTask[];
}

export interface EventFilter {
  name?: string;
  /** events with an id below this (keyset page, newest first) */
  before?: number;
  limit: number;
}

/** Suspended tasks per queue (/metrics, the Tasks tabs). */
export interface SuspendedCount {
  queue: string;
  sleeping: number;
  waitingEvent: number;
}

/** `wake`: a suspended task resumed now; `conflict`: it is not suspended. */
export type WakeResult = 'woken' | 'not_found' | 'conflict';
