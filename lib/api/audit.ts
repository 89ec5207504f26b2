// Who is acting: the HTTP API, the dashboard's server actions and the CLI run each request inside
// `asActor(...)`; every mutation of the front door then records itself with `Audit.record` — who (the
// signed-in user, `bearer`, the OS user), from where (ui/api/cli/library), what, on what, before → after,
// how many — in the store's AuditLog. Library calls outside `asActor` are recorded as `library`.
import { AsyncLocalStorage } from 'node:async_hooks';
import { userInfo } from 'node:os';
import type { Logger } from '../engine/logger';
import type { Store } from '../engine/ports';
import { AUDIT_SOURCES, type AuditFilter, type AuditRecord, type AuditSource, type Page } from '../engine/types';

export interface Actor {
  /** a user name, `bearer` (API token), `loopback` (no credentials configured), an OS user, `code` */
  name: string;
  source: AuditSource;
}

const current = new AsyncLocalStorage<Actor>();

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

export function isAuditSource(v: string): v is AuditSource {
  return (AUDIT_SOURCES as readonly string[]).includes(v);
}

export interface AuditDetail {
  before?: unknown;
  after?: unknown;
  count?: number | null;
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
   * Record one mutation that has happened (call it after the command succeeded). A failure to record is
   * logged, never thrown: the mutation is done and the caller must learn that it was.
   */
  async record(action: string, target: string, detail: AuditDetail = {}): Promise<void> {
    const actor = currentActor();
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

  async list(filter: AuditFilter): Promise<{ items: AuditJson[]; next: number | null }> {
    const page: Page<AuditRecord> = await this.store.reads.listAudit(filter);
    return { items: page.items.map(auditJson), next: page.nextCursor };
  }
}
