// Who is acting: the HTTP API, the dashboard's server actions and the CLI run each request inside
// `asActor(...)`; every mutation of the front door then records itself — who (the signed-in user,
// `bearer`, the OS user), from where (ui/api/cli/library), what, on what, before → after, how many — in
// the store's AuditLog. A command hands the store its row (`Audit.of`), which the store writes in the
// command's own transaction: the change and its record commit together or not at all, and a refused
// command records nothing. `Audit.record` appends alone, for what changes nothing in the store (a KILL).
// Library calls outside `asActor` are recorded as `library`.
import { AsyncLocalStorage } from 'node:async_hooks';
import { userInfo } from 'node:os';
import type { Logger } from '../engine/logger';
import type { AuditWrite, Store } from '../engine/ports';
import {
  AUDIT_SOURCES,
  type AuditFilter,
  type AuditInput,
  type AuditRecord,
  type AuditSource,
  type Page,
  type QueueChange,
  type QueueChangeField,
} from '../engine/types';

export interface Actor {
  /** a user name, `bearer` (API token), `loopback` (no credentials configured), an OS user, `code` */
  name: string;
  source: AuditSource;
}

// one store for the whole process: a bundler may load this module more than once (Next.js builds the
// instrumentation hook, route handlers and server actions as separate graphs), and the actor set by one
// copy must be seen by the Readpast made from another
const ACTOR_KEY = Symbol.for('readpast.actor');
const holder = globalThis as unknown as Record<symbol, AsyncLocalStorage<Actor> | undefined>;
const current: AsyncLocalStorage<Actor> = (holder[ACTOR_KEY] ??= new AsyncLocalStorage<Actor>());

let processUser: string | null = null;
function osUser(): string {
  if (processUser === null) {
    try {
      processUser = userInfo().username || 'unknown';
    } catch {
      processUser = process.env.USER ?? 'unknown';
    }
  }
  return processUser;
}

/** Run `fn` as `actor`: the mutations it makes through the front door are recorded under that name and source. */
export function asActor<T>(actor: Actor, fn: () => T): T {
  return current.run(actor, fn);
}

/** The actor of the current request; outside one, the process's OS user calling as a library. */
export function currentActor(): Actor {
  return current.getStore() ?? { name: osUser(), source: 'library' };
}

/** Whether the current call is a library's own (outside `asActor`, or as `library`): its producing is not audited. */
export function libraryCall(): boolean {
  const actor = current.getStore();
  return actor === undefined || actor.source === 'library';
}

export function isAuditSource(v: string): v is AuditSource {
  return (AUDIT_SOURCES as readonly string[]).includes(v);
}

export interface AuditDetail {
  /** a library call's own name for who acts (e.g. `changedBy` of setQueue); ignored inside asActor */
  by?: string;
  before?: unknown;
  after?: unknown;
  count?: number | null;
}

/** What a command records of its outcome: null when the outcome changed nothing (refused, not found). */
export interface AuditCall extends AuditDetail {
  action: string;
  target: string;
}

export interface AuditJson {
  id: number;
  at: string;
  actor: string;
  source: AuditSource;
  action: string;
  target: string;
  before: unknown;
  after: unknown;
  count: number | null;
}

export const auditJson = (r: AuditRecord): AuditJson => ({
  id: r.id,
  at: r.at.toISOString(),
  actor: r.actor,
  source: r.source,
  action: r.action,
  target: r.target,
  before: r.before ?? null,
  after: r.after ?? null,
  count: r.count,
});

/** The front door's recorder of mutations. */
export class Audit {
  constructor(
    private readonly store: Store,
    private readonly logger: Logger,
  ) {}

  /**
   * The audit row of a command, for the store to write in the command's own transaction (AuditWrite): the
   * actor is who acts now, the rest is built from the command's outcome by `build` (null: nothing to record).
   * Pass the same object to every transaction of one action (bulk chunks): the row says what has committed.
   */
  of<R>(build: (outcome: R) => AuditCall | AuditCall[] | null, by?: string): AuditWrite<R> {
    const actor = current.getStore() ?? { name: by || currentActor().name, source: 'library' as const };
    const row = (c: AuditCall): AuditInput => ({
      actor: actor.name,
      source: actor.source,
      action: c.action,
      target: c.target,
      before: c.before,
      after: c.after,
      count: c.count ?? null,
    });
    return {
      entry: (outcome) => {
        const c = build(outcome);
        if (!c) return null;
        return Array.isArray(c) ? c.map(row) : row(c);
      },
    };
  }

  /**
   * Record one action that changes nothing in the store (a KILL of a session), after it happened. A failure
   * to record is logged, never thrown: the action is done and the caller must learn that it was.
   */
  async record(action: string, target: string, detail: AuditDetail = {}): Promise<void> {
    const actor = current.getStore() ?? { name: detail.by || currentActor().name, source: 'library' as const };
    try {
      await this.store.commands.recordAudit([
        {
          actor: actor.name,
          source: actor.source,
          action,
          target,
          before: detail.before,
          after: detail.after,
          count: detail.count ?? null,
        },
      ]);
    } catch (err) {
      this.logger.warn({ err, action, target }, 'could not write the audit log');
    }
  }

  /** recorded limit / pause changes of one queue (or of all), newest first: a view of the audit trail */
  async queueChanges(queue: string | null, limit: number): Promise<QueueChange[]> {
    const page = await this.store.reads.listAudit({ action: 'queue.update', target: queue ?? undefined, limit });
    return queueChangesOf(page.items).slice(0, limit);
  }

  async list(filter: AuditFilter): Promise<{ items: AuditJson[]; next: number | null }> {
    const page: Page<AuditRecord> = await this.store.reads.listAudit(filter);
    return { items: page.items.map(auditJson), next: page.nextCursor };
  }
}

/** who changed a queue, as the queue history has always shown it: the signed-in user, or where from */
function changedByOf(r: AuditRecord): string {
  if (r.source === 'cli') return r.actor === 'cli' ? 'cli' : `cli:${r.actor}`;
  if (r.source === 'tsql') return r.source;
  if (r.source === 'library') return r.actor;
  if (r.actor === 'loopback' || r.actor === 'unknown' || r.actor === 'bearer') return r.source === 'ui' ? 'dashboard' : r.source;
  return r.actor;
}

/** A recorded value as the queue history shows it: `unlimited` / `none` for no limit, paused as true/false. */
function showValue(field: QueueChangeField, v: unknown): string {
  if (field === 'paused') return String(v === true);
  if (v === null || v === undefined) return field === 'concurrencyLimit' ? 'unlimited' : 'none';
  return String(v);
}

/** The fields of a `queue.update` row, newest first as the store records them (the limit before the pause, then throttle). */
const CHANGE_FIELDS: readonly QueueChangeField[] = ['rateLimit', 'keyFrom', 'perKeyLimit', 'paused', 'concurrencyLimit'];

/**
 * The queue change history, read from the audit trail (`queue.update` rows): one change per field that
 * changed, newest first, in the shape the Queues page has always shown.
 */
export function queueChangesOf(records: AuditRecord[]): QueueChange[] {
  const out: QueueChange[] = [];
  for (const r of records) {
    if (r.action !== 'queue.update') continue;
    const before = (r.before ?? {}) as Record<string, unknown>;
    const after = (r.after ?? {}) as Record<string, unknown>;
    CHANGE_FIELDS.forEach((field, j) => {
      if (!(field in after)) return;
      out.push({
        id: r.id * CHANGE_FIELDS.length + (CHANGE_FIELDS.length - 1 - j),
        queue: r.target,
        at: r.at,
        changedBy: changedByOf(r),
        field,
        oldValue: showValue(field, before[field]),
        newValue: showValue(field, after[field]),
      });
    });
  }
  return out;
}
