// The payload preview of running attempts (RunningView.payloadPreview): one bounded read for the list.
import type { RunningView } from '../../lib/engine/types';
import { sql, type Shared } from './connection';
import { token } from './rows';
import * as S from './sql/running-preview';

/** `rows` with `payloadPreview` set: the payload's first characters (JSON text), `…` when cut; null without a payload */
export async function withPayloadPreview(shared: Shared, rows: Promise<RunningView[]>): Promise<RunningView[]> {
  const list = await rows;
  if (list.length === 0) return list;
  const found = (
    await shared.query<{ token: string; preview: string | null; len: number | null }>(S.PAYLOAD_PREVIEW, [
      ['tokens', sql.NVarChar(sql.MAX), JSON.stringify(list.map((r) => r.token))],
    ])
  ).recordset;
  const by = new Map(
    found.map((f) => [token(f.token), f.preview === null ? null : f.preview + ((f.len ?? 0) > S.PREVIEW_CHARS ? '…' : '')]),
  );
  return list.map((r) => ({ ...r, payloadPreview: by.get(r.token) ?? null }));
}
