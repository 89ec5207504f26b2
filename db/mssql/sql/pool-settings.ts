// T-SQL of the pool sizes set per host and role (readpast.PoolSettings).

export const GET_POOL_SETTING = `SELECT p.host, p.role, p.size, p.updated_by, p.updated_at
FROM readpast.PoolSettings AS p
WHERE p.host = @host AND p.role = @role;`;

/** the previous row (if any), then the new size; one row per (host, role) under a key-range lock */
export const SET_POOL_SETTING = `SET XACT_ABORT ON;
BEGIN TRANSACTION;
SELECT p.host, p.role, p.size, p.updated_by, p.updated_at
FROM readpast.PoolSettings AS p WITH (UPDLOCK, HOLDLOCK)
WHERE p.host = @host AND p.role = @role;
UPDATE readpast.PoolSettings
SET size = @n, updated_by = @by, updated_at = SYSUTCDATETIME()
WHERE host = @host AND role = @role;
IF @@ROWCOUNT = 0
  INSERT INTO readpast.PoolSettings (host, role, size, updated_by, updated_at)
  VALUES (@host, @role, @n, @by, SYSUTCDATETIME());
COMMIT TRANSACTION;`;
