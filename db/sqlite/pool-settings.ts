// The pool size set per host and role: read at a pool's start, written when an operator resizes it.
import type { AuditWrite, CommandPort, ReadModel } from '../../lib/engine/ports';
import type { PoolSetting, PoolSettingInput } from '../../lib/engine/pool-settings';
import { read, type Shared } from './connection';
import * as S from './sql/pool-settings';
import { stmt } from './stmt';
import type { Slice } from '../shared/bind';

interface Row {
  host: string;
  role: string;
  size: number;
  updated_by: string;
  updated_at: number;
}

const toSetting = (r: Row): PoolSetting => ({
  host: r.host,
  role: r.role,
  size: r.size,
  updatedBy: r.updated_by,
  updatedAt: new Date(r.updated_at),
});

export function getPoolSetting(shared: Shared, host: string, role: string): Promise<PoolSetting | null> {
  return read(() => {
    const r = stmt(shared.db, S.GET_POOL_SETTING).get(host, role) as Row | undefined;
    return r ? toSetting(r) : null;
  });
}

/** Store the size; returns the setting it replaced (null when there was none). */
export function setPoolSetting(shared: Shared, s: PoolSettingInput, audit?: AuditWrite<PoolSetting | null>): Promise<PoolSetting | null> {
  return shared.tx((_tally, now) => {
    const old = stmt(shared.db, S.GET_POOL_SETTING).get(s.host, s.role) as Row | undefined;
    stmt(shared.db, S.UPSERT_POOL_SETTING).run(s.host, s.role, s.size, s.updatedBy.slice(0, 200), now);
    return old ? toSetting(old) : null;
  }, audit);
}

/** this module's part of the CommandPort (store.ts binds it to the store's Shared) */
export const commandSlice = { setPoolSetting } satisfies Slice<Shared, CommandPort>;

/** this module's part of the ReadModel (store.ts binds it to the store's Shared) */
export const readSlice = { getPoolSetting } satisfies Slice<Shared, ReadModel>;
