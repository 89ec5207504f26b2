// The audit trail on SQL Server: append and read newest first, keyset-paged on id.
import { auditJson, parseAuditJson as parse } from '../../lib/engine/audit';
import type { AuditFilter, AuditInput, AuditRecord, AuditSource, Page } from '../../lib/engine/types';
import { sql, type Shared } from './connection';
import * as S from './sql/audit';

export async function recordAudit(shared: Shared, entries: AuditInput[]): Promise<void> {
  for (const e of entries) {
    await shared.write(S.INSERT_AUDIT, [
      ['actor', sql.NVarChar(200), e.actor.slice(0, 200)],
      ['source', sql.VarChar(10), e.source],
      ['action', sql.VarChar(64), e.action.slice(0, 64)],
      ['target', sql.NVarChar(400), e.target.slice(0, 400)],
      ['before_json', sql.NVarChar(sql.MAX), auditJson(e.before)],
      ['after_json', sql.NVarChar(sql.MAX), auditJson(e.after)],
      ['n', sql.Int, e.count ?? null],
    ]);
  }
}

interface Row {
  id: string | number;
  at: Date;
  actor: string;
  source: string;
  action: string;
  target: string;
  before_json: string | null;
  after_json: string | null;
  n: number | null;
}

export async function listAudit(shared: Shared, f: AuditFilter): Promise<Page<AuditRecord>> {
  const prefix = f.action?.endsWith('.') ? f.action.replace(/[\\%_[]/g, (c) => '\\' + c) + '%' : null;
  const exact = f.action && !prefix ? f.action : null;
  const r = await shared.query<Row>(S.LIST_AUDIT, [
    ['limit', sql.Int, f.limit + 1],
    ['cursor', sql.BigInt, f.cursor ?? Number.MAX_SAFE_INTEGER],
    ['action', sql.VarChar(64), exact],
    ['action_prefix', sql.VarChar(130), prefix],
    ['target', sql.NVarChar(400), f.target ?? null],
    ['actor', sql.NVarChar(200), f.actor ?? null],
  ]);
  const rows = r.recordset;
  const more = rows.length > f.limit;
  const items = rows.slice(0, f.limit).map(
    (x): AuditRecord => ({
      id: Number(x.id),
      at: x.at,
      actor: x.actor,
      source: x.source as AuditSource,
      action: x.action,
      target: x.target,
      before: parse(x.before_json),
      after: parse(x.after_json),
      count: x.n,
    }),
  );
  return { items, nextCursor: more ? items[items.length - 1]!.id : null };
}
