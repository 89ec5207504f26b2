// T-SQL of batches (the seeds' scheduler handles): ordered stages of parallel tasks, with kept
// per-stage counts (BatchStages) maintained by every writer through the tally (settling a batch after
// its tasks moved is in settle.ts). Lock order (sql/claim.ts): the batch's row first, then its tasks, at
// most ESCALATION_CHUNK per statement (enqueue.ts), then the kept counts.
import { CASCADE_FAILURE, DECLARE_EDGES } from './edges';
import { ESCALATION_CHUNK } from './chunks';
import { BEGIN, DECLARE_MOVES, MOVES_TO_DELTAS, TALLY } from './tally';

const BATCH_COLUMNS = 'b.id, b.caller, b.max_parallel, b.on_failure, b.status, b.created_at, b.released_at, b.completed_at';
const STAGE_COLUMNS = `s.batch_id, s.stage, s.total, s.pending, s.running, s.succeeded, s.dead, s.cancelled, s.first_started_at,
  s.last_ended_at`;

export const CREATE_BATCH = `SET NOCOUNT ON;
DECLARE @ids TABLE (id bigint NOT NULL);
INSERT INTO readpast.Batches (caller, max_parallel, on_failure, status, served_at, created_at)
  OUTPUT inserted.id INTO @ids
  VALUES (@caller, @max_parallel, @on_failure, 'open', 0, SYSUTCDATETIME());
SELECT i.id FROM @ids AS i;`;

/** A batch and its stages (two result sets). */
export const GET_BATCH = `SELECT ${BATCH_COLUMNS} FROM readpast.Batches AS b WHERE b.id = @id;
SELECT ${STAGE_COLUMNS} FROM readpast.BatchStages AS s WHERE s.batch_id = @id ORDER BY s.stage;`;

export interface BatchListShape {
  status: boolean;
  cursor: boolean;
}

export const BATCH_LIST_SHAPES: readonly BatchListShape[] = [false, true].flatMap((status) =>
  [false, true].map((cursor) => ({ status, cursor })),
);

export function listBatchesSql(s: BatchListShape): string {
  const parts: string[] = [];
  if (s.status) parts.push('b.status = @status');
  if (s.cursor) parts.push('b.id < @cursor');
  const where = parts.length ? `\nWHERE ${parts.join(' AND ')}` : '';
  return `SELECT TOP (@limit) ${BATCH_COLUMNS} FROM readpast.Batches AS b${where}\nORDER BY b.id DESC;`;
}

/** The stages of the batches in the JSON array @ids. */
export const BATCH_STAGES = `SELECT ${STAGE_COLUMNS} FROM readpast.BatchStages AS s
WHERE s.batch_id IN (SELECT CAST(j.value AS bigint) FROM OPENJSON(@ids) AS j)
ORDER BY s.batch_id, s.stage;`;

/** No more tasks: returns (old_status, released). The store settles the batch next (it may be complete already). */
export const RELEASE_BATCH = `SET NOCOUNT ON;
DECLARE @old varchar(10) = (SELECT b.status FROM readpast.Batches AS b WHERE b.id = @id);
DECLARE @n int;
UPDATE readpast.Batches SET status = 'released', released_at = SYSUTCDATETIME() WHERE id = @id AND status = 'open';
SET @n = @@ROWCOUNT;
SELECT @old AS old_status, @n AS released;`;

/**
 * Pending tasks cancelled (ESCALATION_CHUNK per statement, in the one transaction), running ones asked to
 * stop, no new tasks. Returns (old_status, cancelled).
 */
export const CANCEL_BATCH = `${BEGIN}
${DECLARE_MOVES}
${DECLARE_EDGES}
DECLARE @old varchar(10) = NULL, @n int = ${ESCALATION_CHUNK};
BEGIN TRANSACTION;
SELECT @old = b.status FROM readpast.Batches AS b WITH (UPDLOCK, HOLDLOCK) WHERE b.id = @id;
IF @old IS NOT NULL AND @old NOT IN ('completed', 'cancelled')
BEGIN
  -- the batch's row written first (its U lock turns X now, before any task is locked)
  UPDATE readpast.Batches SET status = 'cancelled', completed_at = @now WHERE id = @id;
  WHILE @n = ${ESCALATION_CHUNK}
  BEGIN
    SET @n = 0;
    WITH doomed AS (
      SELECT TOP (${ESCALATION_CHUNK}) t.id, t.queue, t.batch_id, t.stage, t.status, t.finished_at FROM readpast.Tasks AS t
      WHERE t.batch_id = @id AND t.batch_id IS NOT NULL AND t.status = 'pending'
    )
    UPDATE doomed SET status = 'cancelled', finished_at = @now
      OUTPUT inserted.id, inserted.queue, inserted.batch_id, inserted.stage, deleted.status, inserted.status, NULL, NULL, NULL
      INTO @moves;
    SET @n = @@ROWCOUNT;
  END;
  UPDATE readpast.Tasks SET cancel_requested = 1 WHERE batch_id = @id AND batch_id IS NOT NULL AND status = 'running';
${CASCADE_FAILURE}
${MOVES_TO_DELTAS}
${TALLY}
END;
COMMIT TRANSACTION;
SELECT @old AS old_status, (SELECT COUNT(*) FROM @moves AS m WHERE m.batch_id = @id) AS cancelled;`;
