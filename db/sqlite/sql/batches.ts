// SQL of batches (the seeds' scheduler handles): ordered stages of parallel tasks, with kept per-stage
// counts (BatchStages, added to by the tally). Settling a batch after its tasks moved is in settle.ts;
// the claim's lanes are in claim.ts.

/** (caller, max_parallel, on_failure, created_at) → id */
export const CREATE_BATCH =
  "INSERT INTO Batches (caller, max_parallel, on_failure, status, created_at) VALUES (?, ?, ?, 'open', ?) RETURNING id";

export const BATCH_STATUS = 'SELECT status FROM Batches WHERE id = ?';

/** The first stage after (batch, stage) that has started. */
export const LATER_STARTED_STAGE =
  'SELECT MIN(stage) AS stage FROM BatchStages WHERE batch_id = ? AND stage > ? AND first_started_at IS NOT NULL';

export const GET_BATCH = 'SELECT * FROM Batches WHERE id = ?';
export const BATCH_STAGES = 'SELECT * FROM BatchStages WHERE batch_id = ? ORDER BY stage';

/** A keyset page, newest first (status, status, cursor, cursor, limit); null status or cursor = any. */
export const LIST_BATCHES = `SELECT * FROM Batches WHERE (? IS NULL OR status = ?) AND (? IS NULL OR id < ?)
      ORDER BY id DESC LIMIT ?`;

/** The stages of several batches (a JSON array of ids). */
export const STAGES_OF_BATCHES = 'SELECT * FROM BatchStages WHERE batch_id IN (SELECT value FROM json_each(?)) ORDER BY batch_id, stage';

/** (started_at, batch_id, stage) */
export const STAGE_STARTED = 'UPDATE BatchStages SET first_started_at = COALESCE(first_started_at, ?) WHERE batch_id = ? AND stage = ?';
/** (ended_at, batch_id, stage) */
export const STAGE_ENDED = 'UPDATE BatchStages SET last_ended_at = MAX(COALESCE(last_ended_at, 0), ?) WHERE batch_id = ? AND stage = ?';

/** (released_at, id) */
export const RELEASE_BATCH = "UPDATE Batches SET status = 'released', released_at = ? WHERE id = ?";

/** (finished_at, batch_id) → the cancelled tasks' id, queue, batch_id, stage */
export const CANCEL_BATCH_PENDING = `UPDATE Tasks SET status = 'cancelled', finished_at = ? WHERE batch_id = ? AND batch_id IS NOT NULL
      AND status = 'pending' RETURNING id, queue, batch_id, stage`;

/** A batch's tasks claimed ahead (not started: their pools drop them) are cancelled (finished_at, batch_id). */
export const CANCEL_BATCH_CLAIMED = `UPDATE Tasks SET status = 'cancelled', finished_at = ?, lease_until = NULL
      WHERE batch_id = ? AND batch_id IS NOT NULL AND status = 'claimed' RETURNING id, queue, batch_id, stage, token_no, attempts`;

export const REQUEST_CANCEL_BATCH_RUNNING =
  "UPDATE Tasks SET cancel_requested = 1 WHERE batch_id = ? AND batch_id IS NOT NULL AND status = 'running'";

/** (completed_at, id) */
export const CANCEL_BATCH = "UPDATE Batches SET status = 'cancelled', completed_at = ? WHERE id = ?";
