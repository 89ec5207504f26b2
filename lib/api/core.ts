// What every part of the front door (lib/api/readpast.ts) works with: the store, the handler registry,
// the audit trail, and the checks of a command's arguments that several parts share.
import { ValidationError } from '../engine/errors';
import type { HandlerRegistry } from '../engine/handlers';
import type { Logger } from '../engine/logger';
import type { Store } from '../engine/ports';
import { batchId as batchIdSchema, parseWith, token as tokenSchema, type EnqueueContext } from '../engine/validation';
import type { WebhookPolicy, WebhookPolicyOptions } from '../engine/webhook-guard';
import type { Audit } from './audit';

export interface ReadpastOptions {
  registry?: HandlerRegistry;
  logger?: Logger;
  /**
   * Where alert webhooks may point (lib/engine/webhook-guard.ts): an allow-list in READPAST_WEBHOOK_ALLOW's
   * syntax (default: that variable; a bad entry throws here) and a resolver (default: the system's).
   */
  webhooks?: WebhookPolicyOptions;
  /** the database URL the store was opened with (serveDashboard serves the same database) */
  url?: string;
}

export interface EnqueueOptions {
  caller?: string | null;
  /** false refuses `sql` tasks (the dashboard without READPAST_ALLOW_SQL=1) */
  allowSql?: boolean;
  /** SQL Server: an mssql `Transaction` the caller opened (begun); the task commits with it. Refused on SQLite. */
  transaction?: unknown;
  /**
   * A W3C trace context to continue (an HTTP request's `traceparent` / `tracestate` header): the parent of the
   * enqueue's `send` span, else the active span is (README "OpenTelemetry"). Invalid: ignored.
   */
  traceparent?: string | null;
  tracestate?: string | null;
}

export class Core {
  constructor(
    readonly store: Store,
    readonly registry: HandlerRegistry,
    readonly logger: Logger,
    /** records every mutation of the front door in the AuditLog (who and from where: audit.ts asActor) */
    readonly audit: Audit,
    /** where alert webhooks may point, checked when a rule is saved and when a delivery connects */
    readonly webhooks: WebhookPolicy,
  ) {}

  /**
   * What validating an enqueue request needs: the kinds, the caller, and whether a handler name is known (the
   * local registry, else the names workers registered, read once per call and only when needed). Built on every
   * enqueue: a method, not an arrow property, so that nothing renames a function per call.
   */
  context(opts: EnqueueOptions): EnqueueContext {
    const { registry, store } = this;
    let remote: Set<string> | null = null;
    return {
      kinds: store.kinds,
      caller: opts.caller ?? null,
      allowSql: opts.allowSql,
      knowsHandler(name: string): boolean | Promise<boolean> {
        if (registry.has(name)) return true;
        if (remote) return remote.has(name);
        return store.reads.knownHandlers().then((names) => (remote = new Set(names)).has(name));
      },
    };
  }

  /** a task token (uuid), lower-cased; ValidationError `token` otherwise */
  checkToken(token: unknown): string {
    const r = tokenSchema.safeParse(token);
    if (!r.success) throw new ValidationError('token', 'not a task token (uuid)');
    return r.data.toLowerCase();
  }

  /** a batch id (a positive integer, or its digits); ValidationError `batchId` otherwise */
  checkBatchId(id: unknown): number {
    return parseWith(batchIdSchema, id, 'batchId');
  }
}
