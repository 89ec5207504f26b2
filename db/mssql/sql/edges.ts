// T-SQL fragments of workflows (lib/engine/types/flows.ts has the rules): what a status change of a task does to
// the tasks that depend on it, through readpast.TaskEdges. Each runs inside a writing batch's transaction, after its
// own status changes are in @moves (sql/tally.ts) and before MOVES_TO_DELTAS, and appends the children it moves to
// @moves (so the kept counts follow). Iterative — one round per level of the graph, a table variable as the
// front — so a chain of 10,000 tasks needs no recursion (no MAXRECURSION, no nesting limit).
//
// Locks. A child is always newer than its parents (enqueue links to existing tasks; a flow inserts its nodes in
// topological order), so a cascade that starts at a settled task and walks down locks Tasks rows in rising id
// order, level by level, after the rows the batch itself settled; then TaskEdges (after Tasks in the lock order of
// sql/claim.ts). The enqueue of a child holds its parents' rows (UPDLOCK, in id order) while it reads their status
// and inserts the edges: a settle of such a parent waits for that enqueue (or the enqueue for the settle), so the
// edge is either seen by the settle or made knowing the settled status — never lost between the two. Two
// transactions that both lock a parent and a child of it take them in that order, so neither waits for the other's
// parent while holding its child: no cycle along a chain. The exception: a task coming back (SYNC_EDGES) reads its
// parents' rows after it holds its own — a retry racing its parent's settle may then deadlock, and is run again
// (a 1205 is retried, errors.ts), as for any writer.
//
// Below lock escalation (sql/chunks.ts): a parent may have 9,999 children and a flow 20,000 edges, so each step reads
// the rows it will change into a numbered table variable (@cx: tasks in id order, @ce: edges) and writes them
// ESCALATION_CHUNK at a time, each statement re-checking the rows' state; locks are still held to the commit.
import { DECLARE_CHUNKS, IN_CHUNK, inChunks } from './chunks';

/** Table variables the fragments share: @cm collects one statement's moves of children before they join @moves. */
export const DECLARE_EDGES = `DECLARE @cm TABLE (id bigint NOT NULL PRIMARY KEY,
  queue nvarchar(64) COLLATE Latin1_General_100_BIN2 NOT NULL, batch_id bigint NULL, stage int NULL,
  from_status varchar(10) NOT NULL, to_status varchar(10) NOT NULL, token uniqueidentifier NOT NULL);
DECLARE @front TABLE (id bigint NOT NULL PRIMARY KEY, token uniqueidentifier NOT NULL, why varchar(10) NOT NULL);
DECLARE @ce TABLE (rn int NOT NULL UNIQUE, parent_id bigint NOT NULL, child_id bigint NOT NULL, policy varchar(10) NOT NULL,
  PRIMARY KEY (parent_id, child_id));
DECLARE @arm TABLE (id bigint NOT NULL PRIMARY KEY);
${DECLARE_CHUNKS}`;

/** @cx: the children of the edges in @ce, numbered in id order, each with how many of those edges it has. */
const CE_CHILDREN = `INSERT INTO @cx (rn, id, n)
    SELECT ROW_NUMBER() OVER (ORDER BY d.child_id), d.child_id, d.n
    FROM (SELECT y.child_id, COUNT(*) AS n FROM @ce AS y GROUP BY y.child_id) AS d;`;

/** @cm into @moves: a task already moved in this batch keeps its first from_status and takes the new to_status. */
const CM_TO_MOVES = `UPDATE m SET to_status = c.to_status FROM @moves AS m JOIN @cm AS c ON c.id = m.id;
  INSERT INTO @moves (id, queue, batch_id, stage, from_status, to_status)
    SELECT c.id, c.queue, c.batch_id, c.stage, c.from_status, c.to_status FROM @cm AS c
    WHERE c.from_status <> c.to_status AND NOT EXISTS (SELECT 1 FROM @moves AS m WHERE m.id = c.id);`;

/**
 * Parents that succeeded in this batch (@moves to 'succeeded'): their open edges count as done, each child's
 * parents_left goes down by as many, and a waiting child with none left becomes pending (its run_after kept).
 */
export const RELEASE_CHILDREN = `IF EXISTS (SELECT 1 FROM @moves AS m WHERE m.to_status = 'succeeded' AND m.from_status <> 'succeeded')
BEGIN
  DELETE FROM @cm;
  DELETE FROM @ce;
  INSERT INTO @ce (rn, parent_id, child_id, policy)
    SELECT ROW_NUMBER() OVER (ORDER BY e.child_id, e.parent_id), e.parent_id, e.child_id, e.on_parent_failure
    FROM readpast.TaskEdges AS e JOIN @moves AS m ON m.id = e.parent_id
    WHERE m.to_status = 'succeeded' AND m.from_status <> 'succeeded' AND e.done = 0;
  DELETE FROM @cx;
  ${CE_CHILDREN}
  ${inChunks(
    '@cx',
    `UPDATE c
      SET parents_left = c.parents_left - x.n,
          status = CASE WHEN c.status = 'waiting' AND c.parents_left - x.n <= 0 THEN 'pending' ELSE c.status END
      OUTPUT inserted.id, inserted.queue, inserted.batch_id, inserted.stage, deleted.status, inserted.status, inserted.token INTO @cm
      FROM readpast.Tasks AS c JOIN @cx AS x ON x.id = c.id
      WHERE ${IN_CHUNK};`,
  )}
  ${inChunks(
    '@ce',
    `UPDATE e SET done = 1
      FROM readpast.TaskEdges AS e JOIN @ce AS x ON x.parent_id = e.parent_id AND x.child_id = e.child_id
      WHERE ${IN_CHUNK} AND e.done = 0;`,
  )}
  ${CM_TO_MOVES}
END;`;

/**
 * Parents that went dead or cancelled in this batch (from waiting, pending or running): each waiting child's open
 * edge from them applies its policy — cancel: the child is cancelled (`parent <token> dead|cancelled`, blocked_by =
 * that parent, the first such by id) and its own children take the same step in the next round; run: the edge is
 * done (parents_left down, pending at zero); wait: nothing.
 */
export const CASCADE_FAILURE = `DELETE FROM @front;
INSERT INTO @front (id, token, why)
  SELECT m.id, t.token, m.to_status FROM @moves AS m JOIN readpast.Tasks AS t ON t.id = m.id
  WHERE m.to_status IN ('dead', 'cancelled') AND m.from_status IN ('waiting', 'pending', 'running');
WHILE EXISTS (SELECT 1 FROM @front)
BEGIN
  DELETE FROM @ce;
  DELETE FROM @cm;
  INSERT INTO @ce (rn, parent_id, child_id, policy)
    SELECT ROW_NUMBER() OVER (ORDER BY e.child_id, e.parent_id), e.parent_id, e.child_id, e.on_parent_failure
    FROM readpast.TaskEdges AS e JOIN @front AS f ON f.id = e.parent_id
    WHERE e.done = 0;
  DELETE FROM @cx;
  INSERT INTO @cx (rn, id, parent_id)
    SELECT ROW_NUMBER() OVER (ORDER BY b.child_id), b.child_id, b.parent_id
    FROM (SELECT y.child_id, MIN(y.parent_id) AS parent_id FROM @ce AS y WHERE y.policy = 'cancel' GROUP BY y.child_id) AS b;
  ${inChunks(
    '@cx',
    `UPDATE c
      SET status = 'cancelled', finished_at = @now, blocked_by = x.parent_id, error_number = NULL, error_detail = NULL,
          error_message = CONCAT(N'parent ', LOWER(CONVERT(nchar(36), f.token)), N' ', f.why)
      OUTPUT inserted.id, inserted.queue, inserted.batch_id, inserted.stage, deleted.status, inserted.status, inserted.token INTO @cm
      FROM readpast.Tasks AS c
      JOIN @cx AS x ON x.id = c.id
      JOIN @front AS f ON f.id = x.parent_id
      WHERE ${IN_CHUNK} AND c.status = 'waiting';`,
  )}
  DELETE FROM @cx;
  INSERT INTO @cx (rn, id, n)
    SELECT ROW_NUMBER() OVER (ORDER BY d.child_id), d.child_id, d.n
    FROM (SELECT y.child_id, COUNT(*) AS n FROM @ce AS y WHERE y.policy = 'run' GROUP BY y.child_id) AS d;
  ${inChunks(
    '@cx',
    `UPDATE c
      SET parents_left = c.parents_left - x.n,
          status = CASE WHEN c.parents_left - x.n <= 0 THEN 'pending' ELSE c.status END
      OUTPUT inserted.id, inserted.queue, inserted.batch_id, inserted.stage, deleted.status, inserted.status, inserted.token INTO @cm
      FROM readpast.Tasks AS c JOIN @cx AS x ON x.id = c.id
      WHERE ${IN_CHUNK} AND c.status = 'waiting' AND NOT EXISTS (SELECT 1 FROM @cm AS k WHERE k.id = c.id);`,
  )}
  ${inChunks(
    '@ce',
    `UPDATE e SET done = 1
      FROM readpast.TaskEdges AS e JOIN @ce AS x ON x.parent_id = e.parent_id AND x.child_id = e.child_id
      JOIN @cm AS k ON k.id = x.child_id AND k.to_status <> 'cancelled'
      WHERE ${IN_CHUNK} AND x.policy = 'run';`,
  )}
  ${CM_TO_MOVES}
  DELETE FROM @front;
  INSERT INTO @front (id, token, why) SELECT k.id, k.token, 'cancelled' FROM @cm AS k WHERE k.to_status = 'cancelled';
END;`;

/**
 * The tasks in @arm come back (retried, or re-armed by a parent's retry): their edges done again as their parents
 * stand now — succeeded, or dead or cancelled under `run` (a parent that settled while the task was cancelled left
 * its edge as it was; one retried meanwhile is unfinished again) — and their parents left counted from them. A task
 * that was waiting or pending stays so by its count: waiting while a parent is unfinished, else pending.
 */
const SYNC_EDGES = `DELETE FROM @ce;
  INSERT INTO @ce (rn, parent_id, child_id, policy)
    SELECT ROW_NUMBER() OVER (ORDER BY e.child_id, e.parent_id), e.parent_id, e.child_id, e.on_parent_failure
    FROM readpast.TaskEdges AS e JOIN @arm AS a ON a.id = e.child_id;
  ${inChunks(
    '@ce',
    `UPDATE e
      SET done = CASE WHEN p.status = 'succeeded' OR (e.on_parent_failure = 'run' AND p.status IN ('dead', 'cancelled')) THEN 1 ELSE 0 END
      FROM readpast.TaskEdges AS e JOIN @ce AS x ON x.parent_id = e.parent_id AND x.child_id = e.child_id
      JOIN readpast.Tasks AS p ON p.id = e.parent_id
      WHERE ${IN_CHUNK};`,
  )}
  DELETE FROM @cm;
  DELETE FROM @cx;
  INSERT INTO @cx (rn, id) SELECT ROW_NUMBER() OVER (ORDER BY a.id), a.id FROM @arm AS a;
  ${inChunks(
    '@cx',
    `UPDATE t
      SET parents_left = l.n, status = CASE WHEN l.n > 0 THEN 'waiting' ELSE 'pending' END
      OUTPUT inserted.id, inserted.queue, inserted.batch_id, inserted.stage, deleted.status, inserted.status, inserted.token INTO @cm
      FROM readpast.Tasks AS t JOIN @cx AS x ON x.id = t.id
      CROSS APPLY (SELECT COUNT(*) AS n FROM readpast.TaskEdges AS e WHERE e.child_id = t.id AND e.done = 0) AS l
      WHERE ${IN_CHUNK} AND t.parent_count > 0 AND t.status IN ('waiting', 'pending');`,
  )}
  ${CM_TO_MOVES}`;

/**
 * Tasks retried in this batch (@moves from dead or cancelled to waiting or pending): first their own edges as their
 * parents stand now (SYNC_EDGES); then each one's `run` edges let through to children not yet started (a child suspended
 * by its durable handler has started) are open again
 * (parents_left up; a pending child back to waiting); then the children its failure cancelled (blocked_by = it)
 * return to waiting — unless an unfinished task took their dedup key meanwhile — their edges synced the same way,
 * and theirs in turn, one round per level.
 */
export const REARM_CHILDREN = `DELETE FROM @arm;
INSERT INTO @arm (id)
  SELECT m.id FROM @moves AS m WHERE m.from_status IN ('dead', 'cancelled') AND m.to_status IN ('waiting', 'pending');
IF EXISTS (SELECT 1 FROM @arm)
BEGIN
  ${SYNC_EDGES}
  DELETE FROM @cm;
  DELETE FROM @ce;
  INSERT INTO @ce (rn, parent_id, child_id, policy)
    SELECT ROW_NUMBER() OVER (ORDER BY e.child_id, e.parent_id), e.parent_id, e.child_id, e.on_parent_failure
    FROM readpast.TaskEdges AS e JOIN @arm AS a ON a.id = e.parent_id
    WHERE e.done = 1;
  DELETE FROM @cx;
  ${CE_CHILDREN}
  ${inChunks(
    '@cx',
    `UPDATE c
      SET parents_left = c.parents_left + x.n, status = CASE WHEN c.status = 'pending' THEN 'waiting' ELSE c.status END
      OUTPUT inserted.id, inserted.queue, inserted.batch_id, inserted.stage, deleted.status, inserted.status, inserted.token INTO @cm
      FROM readpast.Tasks AS c JOIN @cx AS x ON x.id = c.id
      WHERE ${IN_CHUNK} AND c.status IN ('waiting', 'pending') AND c.suspended IS NULL;`,
  )}
  ${inChunks(
    '@ce',
    `UPDATE e SET done = 0
      FROM readpast.TaskEdges AS e JOIN @ce AS x ON x.parent_id = e.parent_id AND x.child_id = e.child_id
      JOIN @cm AS k ON k.id = e.child_id
      WHERE ${IN_CHUNK} AND e.done = 1;`,
  )}
  ${CM_TO_MOVES}
END;
WHILE EXISTS (SELECT 1 FROM @arm)
BEGIN
  DELETE FROM @cm;
  DELETE FROM @cx;
  INSERT INTO @cx (rn, id)
    SELECT ROW_NUMBER() OVER (ORDER BY c.id), c.id FROM readpast.Tasks AS c JOIN @arm AS a ON a.id = c.blocked_by
    WHERE c.blocked_by IS NOT NULL AND c.status = 'cancelled';
  ${inChunks(
    '@cx',
    `UPDATE c
      SET status = 'waiting', blocked_by = NULL, finished_at = NULL, error_number = NULL, error_message = NULL,
          error_detail = NULL
      OUTPUT inserted.id, inserted.queue, inserted.batch_id, inserted.stage, deleted.status, inserted.status, inserted.token INTO @cm
      FROM readpast.Tasks AS c JOIN @cx AS x ON x.id = c.id
      WHERE ${IN_CHUNK} AND c.blocked_by IS NOT NULL AND c.status = 'cancelled'
        AND EXISTS (SELECT 1 FROM @arm AS a WHERE a.id = c.blocked_by)
        AND NOT EXISTS (SELECT 1 FROM readpast.Tasks AS o
          WHERE o.dedup_key = c.dedup_key AND o.dedup_key IS NOT NULL AND o.status IN ('waiting', 'pending', 'running'));`,
  )}
  ${CM_TO_MOVES}
  DELETE FROM @arm;
  INSERT INTO @arm (id) SELECT k.id FROM @cm AS k;
  ${SYNC_EDGES}
END;`;

/** @o: the tasks a cancel touched, with their status before (cancelUnfinished). */
export const DECLARE_CANCELLED = `DECLARE @o TABLE (id bigint NOT NULL PRIMARY KEY,
  queue nvarchar(64) COLLATE Latin1_General_100_BIN2 NOT NULL, batch_id bigint NULL, stage int NULL, old_status varchar(10) NOT NULL);`;

/**
 * Cancel the unfinished tasks `from … where` selects (alias t): waiting and pending → cancelled, running → cancel
 * requested; into @o and @moves, then their children's policies (CASCADE_FAILURE).
 */
export const cancelUnfinished = (from: string, where: string) => `DELETE FROM @cx;
INSERT INTO @cx (rn, id)
  SELECT ROW_NUMBER() OVER (ORDER BY t.id), t.id FROM ${from}
  WHERE ${where} AND t.status IN ('waiting', 'pending', 'running');
${inChunks(
  '@cx',
  `UPDATE t
    SET status = CASE WHEN t.status IN ('waiting', 'pending') THEN 'cancelled' ELSE t.status END,
        finished_at = CASE WHEN t.status IN ('waiting', 'pending') THEN @now ELSE t.finished_at END,
        cancel_requested = CASE WHEN t.status = 'running' THEN 1 ELSE t.cancel_requested END
    OUTPUT inserted.id, inserted.queue, inserted.batch_id, inserted.stage, deleted.status INTO @o
    FROM readpast.Tasks AS t JOIN @cx AS x ON x.id = t.id
    WHERE ${IN_CHUNK} AND t.status IN ('waiting', 'pending', 'running');`,
)}
INSERT INTO @moves (id, queue, batch_id, stage, from_status, to_status)
  SELECT o.id, o.queue, o.batch_id, o.stage, o.old_status, 'cancelled' FROM @o AS o WHERE o.old_status IN ('waiting', 'pending');
${CASCADE_FAILURE}`;

/** The status a retried task takes: waiting while it has unfinished parents. */
export const RETRIED_STATUS = "CASE WHEN t.parents_left > 0 THEN 'waiting' ELSE 'pending' END";
