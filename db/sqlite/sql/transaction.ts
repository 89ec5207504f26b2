// SQL of withTransaction on SQLite (transaction.ts): the caller's transaction on its own connection.

/** Take the file's write lock at once, so the caller's statements never fail half-way on a busy upgrade. */
export const BEGIN_IMMEDIATE = 'BEGIN IMMEDIATE';
export const COMMIT = 'COMMIT';
export const ROLLBACK = 'ROLLBACK';
/** Rows changed on this connection so far (what a statement returning rows changed, e.g. INSERT … RETURNING). */
export const TOTAL_CHANGES = 'SELECT total_changes() AS n';
