// T-SQL of the Failed & poison page's groups: dead tasks by failure fingerprint, command and queue.
import { failureWhere, type FailureShape } from './operators';

/** Dead tasks not yet fingerprinted (settled before migration 12, or made dead by a rescue). */
export const UNPRINTED = `SELECT TOP (5000) t.id, t.error_number, t.error_message FROM readpast.Tasks AS t
WHERE t.status = 'dead' AND t.fingerprint IS NULL;`;

/** @prints: JSON array of {id, fingerprint}. */
export const SET_FINGERPRINTS = `SET NOCOUNT ON;
UPDATE t SET fingerprint = j.fingerprint
  FROM readpast.Tasks AS t
  JOIN OPENJSON(@prints) WITH (id bigint '$.id', fingerprint char(16) '$.fingerprint') AS j ON j.id = t.id
  WHERE t.status = 'dead' AND t.fingerprint IS NULL;`;

/** A page of groups, largest first (@offset, @limit), then per group and hour since @trend_since the trend. */
export const groupPageSql = (s: FailureShape) => `SET NOCOUNT ON;
DECLARE @g TABLE (ord int NOT NULL PRIMARY KEY, fingerprint char(16) NULL, command nvarchar(max) COLLATE Latin1_General_100_BIN2 NOT NULL,
  queue nvarchar(64) COLLATE Latin1_General_100_BIN2 NOT NULL, n int NOT NULL, first_at datetime2(3) NULL,
  last_at datetime2(3) NULL, last_id bigint NOT NULL);
INSERT INTO @g (ord, fingerprint, command, queue, n, first_at, last_at, last_id)
  SELECT y.ord, y.fingerprint, y.command, y.queue, y.n, y.first_at, y.last_at, y.last_id
  FROM (
    SELECT ROW_NUMBER() OVER (ORDER BY x.n DESC, x.last_at DESC, x.fingerprint, x.queue, x.last_id) AS ord, x.fingerprint,
      x.command, x.queue, x.n, x.first_at, x.last_at, x.last_id
    FROM (
      SELECT t.fingerprint, b.command, t.queue, COUNT(*) AS n, MIN(t.finished_at) AS first_at, MAX(t.finished_at) AS last_at,
        MAX(t.id) AS last_id
      FROM readpast.Tasks AS t
      CROSS APPLY (SELECT t.command COLLATE Latin1_General_100_BIN2 AS command) AS b
      WHERE ${failureWhere(s)}
      GROUP BY t.fingerprint, b.command, t.queue
    ) AS x
  ) AS y
  WHERE y.ord > @offset AND y.ord <= @offset + @limit;
SELECT g.ord, g.fingerprint, g.command, g.queue, g.n, g.first_at, g.last_at, CONVERT(char(36), t.token) AS sample,
  t.error_number, t.error_message
FROM @g AS g JOIN readpast.Tasks AS t ON t.id = g.last_id
ORDER BY g.ord;
SELECT g.ord, DATEDIFF(HOUR, @trend_since, t.finished_at) AS bucket, COUNT(*) AS n
FROM @g AS g JOIN readpast.Tasks AS t ON t.status = 'dead' AND t.fingerprint = g.fingerprint AND t.queue = g.queue
  AND t.command COLLATE Latin1_General_100_BIN2 = g.command AND t.finished_at >= @trend_since
GROUP BY g.ord, DATEDIFF(HOUR, @trend_since, t.finished_at);`;
