// The payload preview of running attempts (RunningView.payloadPreview): one bounded read for the list.
import type { RunningView } from '../../lib/engine/types';
import { read, type Shared } from './connection';
import * as S from './sql/running-preview';
import { stmt } from './stmt';

/** `rows` with `payloadPreview` set: the payload's first characters (JSON text), `…` when cut; null without a payload */
export async function withPayloadPreview(shared: Shared, rows: Promise<RunningView[]>): Promise<RunningView[]> {
  const list = await rows;
  if (list.length === 0) return list;
  const found = await read(
    () =>
      stmt(shared.db, S.PAYLOAD_PREVIEW).all(JSON.stringify(list.map((r) => r.token))) as {
        token: string;
        preview: string | null;
        len: number | null;
      }[],
  );
  const by = new Map(found.map((f) => [f.token, f.preview === null ? null : f.preview + ((f.len ?? 0) > S.PREVIEW_CHARS ? '…' : '')]));
  return list.map((r) => ({ ...r, payloadPreview: by.get(r.token) ?? null }));
}
