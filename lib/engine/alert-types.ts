// Alert rules, their firings and the facts they are judged on: the types the ports, the stores, the
// rule logic (alerts.ts), the front door and the Alerts page share. Nothing here knows SQL or HTTP, or
// needs a server runtime (the browser's form reads the kinds from here).
import type { EnqueueInput, Outcome } from './types';

/** the internal queue alert deliveries run in, and their built-in handler */
export const ALERT_QUEUE = 'readpast.alerts';
export const ALERT_HANDLER = 'readpast.alert.deliver';
/** attempts of one delivery (each retried with the queue's exponential backoff) */
export const ALERT_DELIVERY_ATTEMPTS = 5;
/** how long one POST may take */
export const ALERT_DELIVERY_TIMEOUT_MS = 10_000;
export const ALERT_SIGNATURE_HEADER = 'X-Readpast-Signature';

export const ALERT_KINDS = ['task_dead', 'ready_age', 'no_worker', 'schedule_missed', 'failure_streak'] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

export const ALERT_FORMATS = ['json', 'slack'] as const;
export type AlertFormat = (typeof ALERT_FORMATS)[number];

export const DEFAULT_DEDUP_MS = 10 * 60_000;
export const MAX_STREAK = 100;

/** Per kind: what it means, and which params it takes (required ones marked). */
export const ALERT_KIND_INFO: Record<AlertKind, { label: string; params: string[]; required: string[] }> = {
  task_dead: { label: 'a task went dead', params: ['queue', 'command'], required: [] },
  ready_age: { label: 'oldest ready task older than a threshold', params: ['queue', 'thresholdMs'], required: ['thresholdMs'] },
  no_worker: { label: 'ready tasks and no live worker for the queue', params: ['queue'], required: [] },
  schedule_missed: { label: 'a schedule missed its tick', params: ['schedule', 'thresholdMs'], required: [] },
  failure_streak: { label: 'N failed attempts in a row of a command', params: ['command', 'count'], required: ['command', 'count'] },
};

/** What a rule watches; which fields apply depends on the kind (alerts.ts `ALERT_KIND_INFO`). */
export interface AlertParams {
  /** task_dead, ready_age, no_worker: only this queue (null: every queue but the internal one) */
  queue?: string | null;
  /** task_dead: only this command; failure_streak: the command (required) */
  command?: string | null;
  /** schedule_missed: only this schedule (null: every enabled schedule) */
  schedule?: string | null;
  /** ready_age: the oldest ready task's wait; schedule_missed: how late a tick may be (ms) */
  thresholdMs?: number | null;
  /** failure_streak: how many failed attempts in a row */
  count?: number | null;
}

export interface AlertRuleInput {
  name: string;
  kind: AlertKind;
  params: AlertParams;
  /** http or https */
  url: string;
  /** HMAC-SHA256 key of the X-Readpast-Signature header; null sends no signature */
  secret: string | null;
  format: AlertFormat;
  /** one firing per (rule, key) within this window */
  dedupMs: number;
  enabled: boolean;
}

export interface AlertRule extends AlertRuleInput {
  id: number;
  /** where the rule's read of new events (dead tasks, attempts) stopped: a time and an id */
  cursorAt: Date | null;
  cursorId: number | null;
  createdBy: string;
  createdAt: Date;
  updatedBy: string;
  updatedAt: Date;
}

export interface AlertFiring {
  id: number;
  /** null once the rule was deleted */
  ruleId: number | null;
  ruleName: string;
  dedupKey: string;
  firedAt: Date;
  message: string;
  /** the delivery task */
  taskToken: string | null;
  /** the delivery task's status, or `gone` when it was pruned */
  status: string;
  /** a test send */
  test: boolean;
}

export interface AlertFiringFilter {
  ruleId?: number;
  /** firings with an id below this (newest first) */
  cursor?: number;
  limit: number;
}

// ---- facts -----------------------------------------------------------------------------------

export interface DeadTaskFact {
  id: number;
  token: string;
  queue: string;
  command: string;
  finishedAt: Date;
  errorMessage: string | null;
}

export interface AttemptFact {
  /** ExecutionLog id */
  id: number;
  token: string;
  outcome: Outcome;
  errorMessage: string | null;
}

export interface DeadTaskQuery {
  /** after this (finished_at, id); null: from `lagMs` ago only (a new rule does not replay history) */
  afterAt: Date | null;
  afterId: number | null;
  queue: string | null;
  command: string | null;
  /** leave out tasks finished within the last lagMs (a settlement still committing) */
  lagMs: number;
  limit: number;
}

// ---- what an evaluation writes ---------------------------------------------------------------

/** One firing to record with its delivery task, unless the same (rule, key) fired within `dedupMs`. */
export interface FiringWrite {
  ruleId: number | null;
  ruleName: string;
  dedupKey: string;
  /** 0 for a test send (never suppressed) */
  dedupMs: number;
  message: string;
  test: boolean;
  /** the delivery task (queue ALERT_QUEUE, command ALERT_HANDLER) */
  delivery: EnqueueInput;
  /** written only if this rule's cursor moves in the same transaction (CursorMove) */
  needsCursor: boolean;
}

/** A rule's cursor moves from `from` to `to` only if no other process moved it meanwhile. */
export interface CursorMove {
  ruleId: number;
  fromAt: Date | null;
  fromId: number | null;
  toAt: Date | null;
  toId: number | null;
}

export interface AlertWrite {
  firings: FiringWrite[];
  cursors: CursorMove[];
}

export interface FiredAlert {
  firingId: number;
  ruleId: number | null;
  ruleName: string;
  dedupKey: string;
  token: string;
}

/** The delivery task's payload: everything the handler needs, the secret left out (only its signature). */
export interface AlertDeliveryPayload {
  rule: string;
  /** the rule whose webhook the delivery goes to: its URL is read when the delivery runs, never kept in the task */
  ruleId: number;
  key: string;
  contentType: string;
  /** the raw body, sent as is (the signature is over these bytes) */
  body: string;
  /** `sha256=<hex>`, or null when the rule has no secret */
  signature: string | null;
}
