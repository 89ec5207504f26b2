// SQL of the pool sizes set per host and role (PoolSettings).

/** (host, role) */
export const GET_POOL_SETTING = 'SELECT host, role, size, updated_by, updated_at FROM PoolSettings WHERE host = ? AND role = ?';

/** (host, role, size, updated_by, updated_at): insert or replace the size */
export const UPSERT_POOL_SETTING = `INSERT INTO PoolSettings (host, role, size, updated_by, updated_at) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT (host, role) DO UPDATE SET size = excluded.size, updated_by = excluded.updated_by, updated_at = excluded.updated_at`;
