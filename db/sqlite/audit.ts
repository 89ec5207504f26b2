// The audit trail: append (one transaction per call) and read newest first, keyset-paged on id.
import { auditJson, parseAuditJson as parse } from '../../lib/engine/audit';
import type { AuditFilter, AuditInput, AuditRecord, AuditSource, Page } from '../../lib/engine/types';
import { read, type Shared } from './connection';
import * as S from './sql/audit';
import { stmt } from './tally';

export function recordAudit(shared: Shared, entries: AuditInput[]): Promise<void> {
  if (entries.length === 0) return Promise.resolve();
  return shared.tx((_tally, now) => {
    const ins = stmt(shared.db, S.INSERT_AUDIT);
    for (const e of entries) {
      ins.run(now, e.actor, e.source, e.action, e.target, auditJson(e.before), auditJson(e.after), e.count ?? null);
    }
  });
}

interface Row {
  id: number;
  at: number;
  actor: string;
  source: string;
  action: string;
  target: string;
  before_json: string | null;
  after_json: string | null;
  n: number | null;
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
    }) as Row[];
    const more = rows.length > f.limit;
    const items = rows.slice(0, f.limit).map(
      (r): AuditRecord => ({
        id: r.id,
        at: new Date(r.at),
        actor: r.actor,
        source: r.source as AuditSource,
        action: r.action,
        target: r.target,
        before: parse(r.before_json),
        after: parse(r.after_json),
        count: r.n,
      }),
    );
    return { items, nextCursor: more ? items[items.length - 1]!.id : null };
  });
}
