// T-SQL of flows (lib/engine/types/flows.ts): creating one — a Flows row, then its nodes through the enqueue procedure
// with @flow_id (edges by ord, sql/enqueue-deps.ts) in one transaction — cancelling and retrying its nodes, and
// reading it. A flow's counts are read from Tasks by flow_id (IX_Tasks_flow), never kept on a hot row.
import { MAX_LINKS_SHOWN } from '../../../lib/engine/limits';
import { HOT, hotName } from './hot';
import { cancelUnfinished, DECLARE_CANCELLED, DECLARE_EDGES } from './edges';
import { BEGIN, DECLARE_MOVES, MOVES_TO_DELTAS, TALLY, TOUCHED } from './tally';

/**
 * One transaction: the Flows row, then the nodes (@tasks, as the enqueue takes them, in topological order).
 * Returns (flow_id, results). The Flows row is new: no other writer can hold it, so it comes first without
 * touching the lock order of the enqueue that follows.
 */
export const CREATE_FLOW = `SET NOCOUNT ON;
SET XACT_ABORT ON;
DECLARE @ids TABLE (id bigint NOT NULL);
DECLARE @flow_id bigint, @results nvarchar(max);
BEGIN TRANSACTION;
INSERT INTO readpast.Flows (name, caller, created_at, node_count)
  OUTPUT inserted.id INTO @ids
  VALUES (@name, @caller, SYSUTCDATETIME(), @node_count);
SET @flow_id = (SELECT i.id FROM @ids AS i);
EXEC ${hotName(HOT.enqueue)} @tasks = @tasks, @flow_id = @flow_id, @results = @results OUTPUT;
COMMIT TRANSACTION;
SELECT @flow_id AS flow_id, @results AS results;`;

/**
 * Every waiting or pending node → cancelled (blocked_by NULL: the flow's cancel, not a parent's), their children's
 * policies applied; running → cancel requested. Returns (found, cancelled, cancel_requested), then the touched batches.
 */
export const CANCEL_FLOW = `${BEGIN}
${DECLARE_MOVES}
${DECLARE_EDGES}
${DECLARE_CANCELLED}
DECLARE @found int = (SELECT COUNT(*) FROM readpast.Flows AS f WHERE f.id = @flow_id);
BEGIN TRANSACTION;
${cancelUnfinished('readpast.Tasks AS t', 't.flow_id = @flow_id')}
${MOVES_TO_DELTAS}
${TALLY}
COMMIT TRANSACTION;
SELECT @found AS found, (SELECT COUNT(*) FROM @moves AS m WHERE m.to_status = 'cancelled') AS cancelled,
  (SELECT COUNT(*) FROM @o AS o WHERE o.old_status = 'running') AS cancel_requested;
${TOUCHED}`;

/** A flow (one row), its nodes by id, and its edges (those whose child is of the flow) as tokens. */
export const GET_FLOW = `SELECT f.id, f.name, f.caller, f.created_at, f.node_count FROM readpast.Flows AS f WHERE f.id = @flow_id;
SELECT t.flow_node, t.token, t.status, t.queue, t.kind, t.command, t.attempts, t.started_at, t.finished_at, t.error_message
FROM readpast.Tasks AS t WHERE t.flow_id = @flow_id ORDER BY t.id;
SELECT p.token AS parent, c.token AS child, e.on_parent_failure
FROM readpast.Tasks AS c
JOIN readpast.TaskEdges AS e ON e.child_id = c.id
JOIN readpast.Tasks AS p ON p.id = e.parent_id
WHERE c.flow_id = @flow_id
ORDER BY e.child_id, e.parent_id;`;

/** Flows newest first below @cursor (NULL: from the newest), @limit + 1 rows, with their counts; @unfinished NULL/0/1. */
export const LIST_FLOWS = `SELECT TOP (@limit) f.id, f.name, f.caller, f.created_at, f.node_count, c.waiting, c.pending, c.running,
  c.succeeded, c.dead, c.cancelled, c.finished_at
FROM readpast.Flows AS f
CROSS APPLY (SELECT COALESCE(SUM(CASE WHEN t.status = 'waiting' THEN 1 ELSE 0 END), 0) AS waiting,
    COALESCE(SUM(CASE WHEN t.status = 'pending' THEN 1 ELSE 0 END), 0) AS pending,
    COALESCE(SUM(CASE WHEN t.status = 'running' THEN 1 ELSE 0 END), 0) AS running,
    COALESCE(SUM(CASE WHEN t.status = 'succeeded' THEN 1 ELSE 0 END), 0) AS succeeded,
    COALESCE(SUM(CASE WHEN t.status = 'dead' THEN 1 ELSE 0 END), 0) AS dead,
    COALESCE(SUM(CASE WHEN t.status = 'cancelled' THEN 1 ELSE 0 END), 0) AS cancelled,
    MAX(t.finished_at) AS finished_at
  FROM readpast.Tasks AS t WHERE t.flow_id = f.id) AS c
WHERE (@cursor IS NULL OR f.id < @cursor)
  AND (@unfinished IS NULL OR (@unfinished = 1 AND c.waiting + c.pending + c.running > 0)
    OR (@unfinished = 0 AND c.waiting + c.pending + c.running = 0))
ORDER BY f.id DESC;`;

/** A task's parents (by parent id) and children (by child id), at most MAX_LINKS_SHOWN each, and how many children. */
export const TASK_LINKS = `DECLARE @task_id bigint = (SELECT t.id FROM readpast.Tasks AS t WHERE t.token = @token);
SELECT TOP (${MAX_LINKS_SHOWN}) p.token, p.flow_node, p.command, p.status, e.on_parent_failure
FROM readpast.TaskEdges AS e JOIN readpast.Tasks AS p ON p.id = e.parent_id
WHERE e.child_id = @task_id ORDER BY e.parent_id;
SELECT TOP (${MAX_LINKS_SHOWN}) c.token, c.flow_node, c.command, c.status, e.on_parent_failure
FROM readpast.TaskEdges AS e JOIN readpast.Tasks AS c ON c.id = e.child_id
WHERE e.parent_id = @task_id ORDER BY e.child_id;
SELECT COUNT(*) AS child_count FROM readpast.TaskEdges AS e WHERE e.parent_id = @task_id;`;

/** The parents of claimed tasks (JSON array @ids), with their results, by child then parent id. */
export const CLAIM_PARENTS = `SELECT e.child_id, p.token, p.flow_node, p.command, p.status, p.result, p.attempt_trace
FROM readpast.TaskEdges AS e JOIN readpast.Tasks AS p ON p.id = e.parent_id
WHERE e.child_id IN (SELECT CAST(j.value AS bigint) FROM OPENJSON(@ids) AS j)
ORDER BY e.child_id, e.parent_id;`;
