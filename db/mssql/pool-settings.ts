// The pool size set per host and role on SQL Server: read at a pool's start, written when an operator resizes it.
import type { PoolSetting, PoolSettingInput } from '../../lib/engine/pool-settings';
import { sql, type Shared } from './connection';
import * as S from './sql/pool-settings';
import type { CommandPort, ReadModel } from '../../lib/engine/ports';
import type { Slice } from '../shared/bind';
import { auditedCommand } from './audit';

interface Row {
  host: string;
  role: string;
  size: number;
  updated_by: string;
  updated_at: Date;
}

const toSetting = (r: Row): PoolSetting => ({
  host: r.host,
  role: r.role,
  size: r.size,
  updatedBy: r.updated_by,
  updatedAt: r.updated_at,
});

const key = (host: string, role: string) =>
  [
    ['host', sql.NVarChar(256), host.slice(0, 256)],
    ['role', sql.NVarChar(32), role.slice(0, 32)],
  ] as const;

export async function getPoolSetting(shared: Shared, host: string, role: string): Promise<PoolSetting | null> {
  const r = await shared.query<Row>(S.GET_POOL_SETTING, [...key(host, role)]);
  const row = r.recordset[0];
  return row ? toSetting(row) : null;
}

/** Store the size; returns the setting it replaced (null when there was none). */
export async function setPoolSetting(shared: Shared, s: PoolSettingInput): Promise<PoolSetting | null> {
  const r = await shared.write<Row>(S.SET_POOL_SETTING, [
    ...key(s.host, s.role),
    ['n', sql.Int, s.size],
    ['by', sql.NVarChar(200), s.updatedBy.slice(0, 200)],
  ]);
  const row = r.recordset?.[0];
  return row ? toSetting(row) : null;
}

/** this module's part of the CommandPort (store.ts binds it to the store's Shared) */
export const commandSlice = { setPoolSetting: auditedCommand(setPoolSetting, 1) } satisfies Slice<Shared, CommandPort>;

/** this module's part of the ReadModel (store.ts binds it to the store's Shared) */
export const readSlice = { getPoolSetting } satisfies Slice<Shared, ReadModel>;
