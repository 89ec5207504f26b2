// The enqueue's dependencies (parts of ENQUEUE_WRITE, sql/enqueue.ts): each task's `dependsOn` read from @tasks,
// its parents found and locked, its status, counters and first flow decided, and its edges inserted after it.
//
// Lock order (sql/claim.ts): the parents' Tasks rows are taken after the queues, batches and keys and before the new
// tasks are inserted — UPDLOCK, ROWLOCK, READCOMMITTEDLOCK (their committed status also under RCSI), a seek per parent
// from a table keyed by id, so in rising id order, as a settle's cascade takes them (sql/edges.ts). Held until
// commit: a parent cannot settle between the read of its status and the insert of the edge, so its settle either
// comes first (and the edge is made knowing it) or waits and then finds the edge.

import { ESCALATION_CHUNK as CHUNK } from './chunks';

/**
 * First, a task whose `dependsOn` is there but not a JSON array of objects (a string — an array escaped on its way —
 * a number, an object, or an element that is not an object) fails the whole call, naming it (51006, `task <ord>,
 * dependsOn: …` or `dependsOn.<n>: …`): read as an array, it would give no row and the dependency would be lost
 * without a word. NULL or absent: no dependencies. (OPENJSON's type: 0 null, 1 string, 2 number, 3 bool, 4 array,
 * 5 object.)
 * Then @dep: one row per dependency — a parent by token (`raw` as given), or by the ord of a task of this same call (a
 * flow's node) — keyed by (task, listing), a seek per task for a flow of 10,000 nodes, and numbered in that order
 * (e: the chunks of the edges' insert).
 */
export const DECLARE_DEPS = `DECLARE @dep_bad nvarchar(2048) = NULL;
SELECT TOP (1) @dep_bad = CONCAT(N'task ', COALESCE(JSON_VALUE(e.value, '$.ord'), e.[key]), N', dependsOn',
    CASE WHEN p.type = 4 THEN CONCAT(N'.', x.[key]) ELSE N'' END, N': ',
    CASE WHEN p.type = 4 THEN N'each dependency must be an object' ELSE N'must be a JSON array' END,
    N' (got ', CASE COALESCE(x.type, p.type) WHEN 1 THEN N'a string' WHEN 2 THEN N'a number' WHEN 3 THEN N'a boolean'
      WHEN 4 THEN N'an array' WHEN 5 THEN N'an object' ELSE N'null' END, N')')
  FROM OPENJSON(@tasks) AS e
  CROSS APPLY OPENJSON(e.value) AS p
  OUTER APPLY (SELECT TOP (1) d.[key], d.type FROM OPENJSON(CASE WHEN p.type = 4 THEN p.value END) AS d
    WHERE d.type <> 5 ORDER BY CAST(d.[key] AS int)) AS x
  WHERE p.[key] = N'dependsOn' AND (p.type NOT IN (0, 4) OR x.type IS NOT NULL)
  ORDER BY CAST(e.[key] AS int);
IF @dep_bad IS NOT NULL THROW 51006, @dep_bad, 1;
DECLARE @dep TABLE (e int IDENTITY(1, 1) NOT NULL UNIQUE, ord int NOT NULL, n int NOT NULL,
  raw nvarchar(100) NULL, parent_token uniqueidentifier NULL, parent_ord int NULL, policy varchar(10) NOT NULL, parent_id bigint NULL,
  parent_status varchar(10) NULL, parent_flow bigint NULL, done bit NOT NULL DEFAULT 0, PRIMARY KEY (ord, n));
INSERT INTO @dep (ord, n, raw, parent_token, parent_ord, policy)
  SELECT j.ord, d.n, d.token, TRY_CONVERT(uniqueidentifier, d.token), d.parent_ord, COALESCE(d.policy, 'cancel')
  FROM OPENJSON(@tasks) WITH (ord int '$.ord', deps nvarchar(max) '$.dependsOn' AS JSON) AS j
  CROSS APPLY OPENJSON(j.deps) WITH (n int '$.n', token nvarchar(100) '$.token', parent_ord int '$.ord',
    policy varchar(10) '$.onParentFailure') AS d
  ORDER BY j.ord, d.n;
DECLARE @par TABLE (id bigint NOT NULL PRIMARY KEY, rn int NOT NULL UNIQUE, status varchar(10) NULL, flow_id bigint NULL);
DECLARE @last_e int = (SELECT MAX(d.e) FROM @dep AS d), @par_at int = 0, @par_last int;`;

/**
 * Inside the transaction: parents by token found, then locked in id order; a token naming no task fails the call
 * (51006, `task <ord>, dependsOn.<n>: no task with token …`). A parent listed twice counts once. Per edge: done when
 * the parent succeeded, or is dead or cancelled under `run`; a task with a dead or cancelled parent under `cancel` is
 * created cancelled (`parent <token> dead`, blocked_by that parent: the first listed); else waiting while an edge is
 * open. A task of no flow joins the flow of its first listed parent that has one.
 */
export const LINK_PARENTS = `IF @last_e IS NOT NULL
BEGIN
  UPDATE d SET parent_id = t.id FROM @dep AS d JOIN readpast.Tasks AS t ON t.token = d.parent_token
    WHERE d.parent_token IS NOT NULL;
  INSERT INTO @par (id, rn)
    SELECT x.parent_id, ROW_NUMBER() OVER (ORDER BY x.parent_id)
    FROM (SELECT DISTINCT d.parent_id FROM @dep AS d WHERE d.parent_id IS NOT NULL) AS x;
  -- locked CHUNK parents per statement (U locks count toward escalation too: sql/chunks.ts), in id order
  SET @par_last = (SELECT COALESCE(MAX(p.rn), 0) FROM @par AS p);
  WHILE @par_at < @par_last
  BEGIN
    UPDATE p SET status = t.status, flow_id = t.flow_id
      FROM @par AS p JOIN readpast.Tasks AS t WITH (UPDLOCK, ROWLOCK, READCOMMITTEDLOCK) ON t.id = p.id
      WHERE p.rn > @par_at AND p.rn <= @par_at + ${CHUNK};
    SET @par_at = @par_at + ${CHUNK};
  END;
  UPDATE d SET parent_status = p.status, parent_flow = p.flow_id FROM @dep AS d JOIN @par AS p ON p.id = d.parent_id;
  SELECT TOP (1) @bad = d.ord, @msg = CONCAT(N'task ', d.ord, N', dependsOn.', d.n, N': no task with token ', COALESCE(d.raw, N'(none)'))
    FROM @dep AS d
    WHERE (d.parent_ord IS NULL AND d.parent_status IS NULL)
      OR (d.parent_ord IS NOT NULL AND d.parent_ord NOT IN (SELECT i.ord FROM @in AS i))
    ORDER BY d.e;
  IF @bad IS NOT NULL THROW 51006, @msg, 1;
  DELETE d FROM @dep AS d
    WHERE EXISTS (SELECT 1 FROM @dep AS o WHERE o.ord = d.ord AND o.n < d.n
      AND (o.parent_id = d.parent_id OR o.parent_ord = d.parent_ord));
  UPDATE d SET done = CASE WHEN d.parent_status = 'succeeded' OR (d.parent_status IN ('dead', 'cancelled') AND d.policy = 'run')
      THEN 1 ELSE 0 END
    FROM @dep AS d;
  UPDATE i SET parent_count = x.cnt, parents_left = x.open_n
    FROM @in AS i
    JOIN (SELECT d.ord, COUNT(*) AS cnt, SUM(CASE WHEN d.done = 0 THEN 1 ELSE 0 END) AS open_n FROM @dep AS d GROUP BY d.ord) AS x
      ON x.ord = i.ord;
  UPDATE i SET blocked_by = b.parent_id,
      error_message = CONCAT(N'parent ', LOWER(CONVERT(nchar(36), b.parent_token)), N' ', b.parent_status)
    FROM @in AS i
    CROSS APPLY (SELECT TOP (1) d.parent_id, d.parent_token, d.parent_status FROM @dep AS d
      WHERE d.ord = i.ord AND d.policy = 'cancel' AND d.parent_status IN ('dead', 'cancelled') ORDER BY d.n) AS b;
  UPDATE i SET flow_id = f.parent_flow
    FROM @in AS i
    CROSS APPLY (SELECT TOP (1) d.parent_flow FROM @dep AS d WHERE d.ord = i.ord AND d.parent_flow IS NOT NULL ORDER BY d.n) AS f
    WHERE i.flow_id IS NULL;
END;`;

/** After the tasks are inserted: their ids, then the edges of the new ones (a dedup hit adds none), CHUNK per statement. */
export const INSERT_EDGES = `IF @last_e IS NOT NULL
BEGIN
  UPDATE i SET task_id = t.id FROM @in AS i JOIN readpast.Tasks AS t ON t.token = i.token;
  SET @from = 1;
  WHILE @from <= @last_e
  BEGIN
    INSERT INTO readpast.TaskEdges (parent_id, child_id, on_parent_failure, done)
      SELECT COALESCE(d.parent_id, p.task_id), c.task_id, d.policy, d.done
      FROM @dep AS d
      JOIN @in AS c ON c.ord = d.ord
      LEFT JOIN @in AS p ON p.ord = d.parent_ord
      WHERE c.existing = 0 AND d.e >= @from AND d.e < @from + ${CHUNK};
    SET @from = @from + ${CHUNK};
  END;
END;`;
