// The pool size an operator sets for a host and role: stored (PoolSettings) so the pool of that role on
// that host starts with it again, and recorded in the audit trail as `pool.resize`.
import type { Audit } from './audit';
import { currentActor } from './audit';
import type { Store } from '../engine/ports';
import type { PoolSetting } from '../engine/pool-settings';
import { MAX_POOL_SIZE } from '../engine/limits';
import { ValidationError } from '../engine/errors';

export interface PoolSettingJson {
  host: string;
  role: string;
  size: number;
  updatedBy: string;
  updatedAt: string;
}

export const poolSettingJson = (s: PoolSetting): PoolSettingJson => ({
  host: s.host,
  role: s.role,
  size: s.size,
  updatedBy: s.updatedBy,
  updatedAt: s.updatedAt.toISOString(),
});

export function getPoolSetting(store: Store, host: string, role: string): Promise<PoolSetting | null> {
  return store.reads.getPoolSetting(host, role);
}

/**
 * Store `size` for the pool of `role` on `host` and record `pool.resize` (target `<host>/<role>`) with the
 * size the pool had (`before`, as it ran) and the new one.
 */
export async function savePoolSize(
  store: Store,
  audit: Audit,
  s: { host: string; role: string; size: number; before: number | null },
): Promise<PoolSetting | null> {
  if (!Number.isInteger(s.size) || s.size < 0 || s.size > MAX_POOL_SIZE) {
    throw new ValidationError('workers', `must be an integer from 0 to ${MAX_POOL_SIZE}`);
  }
  return store.commands.setPoolSetting(
    { host: s.host, role: s.role, size: s.size, updatedBy: currentActor().name },
    audit.of((previous: PoolSetting | null) => ({
      action: 'pool.resize',
      target: `${s.host}/${s.role}`,
      before: { workers: s.before ?? previous?.size ?? null },
      after: { workers: s.size },
      count: 1,
    })),
  );
}
