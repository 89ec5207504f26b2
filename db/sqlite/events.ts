// Events on SQLite (lib/engine/types/durable.ts): sending one resumes, in its transaction, every task suspended on
// its name whose match the payload contains; a task suspending on an event first looks for one sent since its
// attempt began (settle.ts calls `suspendAttempt`); the Events page; pruning.
import { matches } from '../../lib/engine/steps';
import type {
  EventDetail,
  EventFilter,
  EventMatch,
  EventView,
  Page,
  ResumedTask,
  SendEventInput,
  SendEventResult,
  StepWrite,
} from '../../lib/engine/types';
import type { AuditWrite, CommandPort, ReadModel } from '../../lib/engine/ports';
import type { Slice } from '../shared/bind';
import { read, type Db, type Shared } from './connection';
import { eventView, parseJson, toJson, type EventRow } from './rows';
import * as S from './sql/events';
import { putSuspendedStep, resume } from './steps';
import { stmt } from './stmt';
import type { Tally } from './tally';

/** send an event: its row and the tasks it resumes, in one transaction */
export async function sendEvent(shared: Shared, input: SendEventInput, audit?: AuditWrite<SendEventResult>): Promise<SendEventResult> {
  const r = await shared.tx((tally, now): SendEventResult => {
    const db = shared.db;
    const { id } = stmt(db, S.INSERT_EVENT).get(input.name, toJson(input.payload), now, input.caller) as { id: number };
    const waits = stmt(db, S.WAITING_FOR).all(input.name) as { task_id: number; event_match: string | null }[];
    const tokens: string[] = [];
    for (const w of waits) {
      const match = (w.event_match === null ? {} : JSON.parse(w.event_match)) as EventMatch;
      if (!matches(input.payload, match)) continue;
      const token = resume(db, w.task_id, input.payload, id, tally, now);
      if (token !== null) tokens.push(token);
    }
    if (tokens.length) stmt(db, S.ADD_RESUMED).run(tokens.length, id);
    return { id, resumed: tokens.length, tokens };
  }, audit);
  if (r.resumed) shared.wake();
  return r;
}

/**
 * Inside a settlement's transaction, once its task is suspended (fenced): the step it suspends on, and — for an
 * event wait — an event of that name sent since the attempt began that matches, which resumes it at once. True
 * when it did (the task is pending again).
 */
export function suspendAttempt(db: Db, taskId: number, attempt: number, step: StepWrite, tally: Tally, now: number): boolean {
  putSuspendedStep(db, taskId, attempt, step);
  if (step.kind !== 'event' || step.event === null) return false;
  const began = stmt(db, S.ATTEMPT_STARTED).get(taskId, attempt) as { started_at: number } | undefined;
  if (!began) return false;
  for (const e of stmt(db, S.EVENTS_SINCE).all(step.event, began.started_at) as Array<{ id: number; payload: string | null }>) {
    const payload = parseJson(e.payload);
    if (!matches(payload, step.match ?? {})) continue;
    if (resume(db, taskId, payload, e.id, tally, now) === null) return false;
    stmt(db, S.ADD_RESUMED).run(1, e.id);
    return true;
  }
  return false;
}

export function listEvents(shared: Shared, f: EventFilter): Promise<Page<EventView>> {
  return read(() => {
    const rows = stmt(shared.db, S.LIST_EVENTS).all({ name: f.name ?? null, before: f.before ?? null, limit: f.limit + 1 }) as EventRow[];
    const items = rows.slice(0, f.limit).map(eventView);
    return { items, nextCursor: rows.length > f.limit ? items[items.length - 1]!.id : null };
  });
}

export function getEvent(shared: Shared, id: number): Promise<EventDetail | null> {
  return read(() => {
    const row = stmt(shared.db, S.GET_EVENT).get(id) as EventRow | undefined;
    if (!row) return null;
    return { ...eventView(row), tasks: stmt(shared.db, S.EVENT_TASKS).all(id) as ResumedTask[] };
  });
}

/** Events sent before the cutoff, but those an unfinished task was resumed by. */
export function pruneEvents(db: Db, cutoff: number): number {
  return stmt(db, S.PRUNE_EVENTS).run(cutoff).changes;
}

export const commandSlice = { sendEvent } satisfies Slice<Shared, CommandPort>;
export const readSlice = { listEvents, getEvent } satisfies Slice<Shared, ReadModel>;
