// The audit trail: append (one transaction per call) and read newest first, keyset-paged on id.
import { auditJson } from '../../lib/engine/audit';
import type { AuditWrite, CommandPort, ReadModel } from '../../lib/engine/ports';
import type { AuditFilter, AuditInput, AuditRecord, Page } from '../../lib/engine/types';
import { read, type Db, type Shared } from './connection';
import * as S from './sql/audit';
import { stmt } from './stmt';
import type { Slice } from '../shared/bind';
import { auditRecord, type AuditRow } from './rows';

export function recordAudit(shared: Shared, entries: AuditInput[]): Promise<void> {
  if (entries.length === 0) return Promise.resolve();
  return shared.tx((_tally, now) => {
    const ins = stmt(shared.db, S.INSERT_AUDIT);
    for (const e of entries) {
      ins.run(now, e.actor, e.source, e.action, e.target, auditJson(e.before), auditJson(e.after), e.count ?? null);
    }
  });
}

/**
 * Inside a command's transaction: its audit row built from `outcome` (none when the entry is null), or,
 * when `audit.id` is set (an earlier transaction of the same action wrote it), that row's after and count
 * rewritten. Returns the row's id. A row the database refuses fails the transaction, change and all.
 */
export function writeAudit<R>(db: Db, now: number, audit: AuditWrite<R>, outcome: R): number | undefined {
  const built = audit.entry(outcome);
  const rows = built === null ? [] : Array.isArray(built) ? built : [built];
  if (rows.length === 0) return audit.id;
  if (audit.id !== undefined) {
    stmt(db, S.UPDATE_AUDIT).run(auditJson(rows[0]!.after), rows[0]!.count ?? null, audit.id);
    return audit.id;
  }
  const ins = stmt(db, S.INSERT_AUDIT);
  const ids = rows.map((e) =>
    Number(ins.run(now, e.actor, e.source, e.action, e.target, auditJson(e.before), auditJson(e.after), e.count ?? null).lastInsertRowid),
  );
  return ids[0];
}

export function listAudit(shared: Shared, f: AuditFilter): Promise<Page<AuditRecord>> {
  return read(() => {
    const prefix = f.action?.endsWith('.') ? f.action.replace(/[\\%_]/g, (c) => '\\' + c) + '%' : null;
    const exact = f.action && !prefix ? f.action : null;
    // numbered parameters (?1 … ?6) bind from an object keyed by number
    const rows = stmt(shared.db, S.LIST_AUDIT).all({
      1: f.cursor ?? Number.MAX_SAFE_INTEGER,
      2: exact,
      3: prefix,
      4: f.target ?? null,
      5: f.actor ?? null,
      6: f.limit + 1,
    }) as AuditRow[];
    const more = rows.length > f.limit;
    const items = rows.slice(0, f.limit).map(auditRecord);
    return { items, nextCursor: more ? items[items.length - 1]!.id : null };
  });
}

/** this module's part of the CommandPort (store.ts binds it to the store's Shared) */
export const commandSlice = { recordAudit } satisfies Slice<Shared, CommandPort>;

/** this module's part of the ReadModel (store.ts binds it to the store's Shared) */
export const readSlice = { listAudit } satisfies Slice<Shared, ReadModel>;
