// Durable handlers at the front door (rules: lib/engine/types/durable.ts): sending an event (audited, but a
// library's own sends: its business, as its enqueues), waking a suspended task, a task's steps, the events kept.
import { ConflictError, NotFoundError, ValidationError } from '../engine/errors';

import { checkEventName, checkEventPayload } from '../engine/steps';
import type { SendEventResult, WakeResult } from '../engine/types';
import { currentActor } from './audit';
import type { Core } from './core';
import { eventDetailJson, eventJson, stepJson, type EventDetailJson, type EventJson, type StepJson } from './present';

/** The Events page's page size: default and most. */
export const EVENT_PAGE_DEFAULT = 50;
export const EVENT_PAGE_MAX = 200;

export interface SendEventOptions {
  /** recorded on the event: who sent it (default: the actor's name, as audited) */
  caller?: string | null;
}

export interface EventFilterRequest {
  name?: unknown;
  before?: unknown;
  limit?: unknown;
}

function positiveInt(v: unknown, field: string, max = Number.MAX_SAFE_INTEGER): number {
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > max) throw new ValidationError(field, `an integer from 1 to ${max}`);
  return n;
}

export class Durable {
  constructor(private readonly core: Core) {}

  /**
   * Send an event: every task waiting for `name` whose match the payload contains resumes with the payload, in the
   * event's transaction. `{ id, resumed, tokens }`.
   */
  async sendEvent(name: unknown, payload: unknown, opts: SendEventOptions = {}): Promise<SendEventResult> {
    const actor = currentActor();
    const input = {
      name: checkEventName(name, 'name'),
      payload: checkEventPayload(payload, 'payload'),
      caller: opts.caller === undefined ? actor.name : opts.caller,
    };
    if (input.caller !== null && (typeof input.caller !== 'string' || input.caller.length > 200)) {
      throw new ValidationError('caller', 'a string of at most 200 characters');
    }
    const written =
      actor.source === 'library'
        ? undefined
        : this.core.audit.of((r: SendEventResult) => ({
            action: 'event.send',
            target: input.name,
            after: { id: r.id, resumed: r.resumed, tokens: r.tokens.slice(0, 20) },
            count: 1,
          }));
    return this.core.store.commands.sendEvent(input, written);
  }

  /** resume a sleeping task, or one waiting for an event, now: its sleep or wait returns null */
  async wake(token: unknown): Promise<'woken'> {
    const t = this.core.checkToken(token);
    const written = this.core.audit.of((r: WakeResult) => (r === 'woken' ? { action: 'task.wake', target: t, count: 1 } : null));
    const r = await this.core.store.commands.wake(t, written);
    if (r === 'not_found') throw new NotFoundError(`no task with token ${String(token)}`);
    if (r === 'conflict') throw new ConflictError('only a sleeping task, or one waiting for an event, can be woken');
    return r;
  }

  /** a durable task's recorded steps, in order */
  async steps(token: unknown): Promise<StepJson[]> {
    const t = this.core.checkToken(token);
    const [steps, task] = await Promise.all([this.core.store.reads.listSteps(t), this.core.store.reads.getTask(t)]);
    if (!steps || !task) throw new NotFoundError(`no task with token ${String(token)}`);
    return steps.map((s) => stepJson(s, task.attempts));
  }

  /** events newest first: `{ items, nextCursor }` (pass nextCursor as `before`) */
  async events(f: EventFilterRequest = {}): Promise<{ items: EventJson[]; nextCursor: number | null }> {
    const filter = {
      ...(f.name === undefined || f.name === '' ? {} : { name: checkEventName(f.name, 'name') }),
      ...(f.before === undefined || f.before === '' ? {} : { before: positiveInt(f.before, 'before') }),
      limit: f.limit === undefined || f.limit === '' ? EVENT_PAGE_DEFAULT : positiveInt(f.limit, 'limit', EVENT_PAGE_MAX),
    };
    const page = await this.core.store.reads.listEvents(filter);
    return { items: page.items.map(eventJson), nextCursor: page.nextCursor };
  }

  /** an event with the (kept) tasks it resumed */
  async event(id: unknown): Promise<EventDetailJson> {
    const e = await this.core.store.reads.getEvent(positiveInt(id, 'id'));
    if (!e) throw new NotFoundError(`no event ${String(id)}`);
    return eventDetailJson(e);
  }
}
