// SQL around running a `sql` task's text on the store's connection.

/** Rows changed on this connection so far (to count what a multi-statement script changed). */
export const TOTAL_CHANGES = 'SELECT total_changes() AS n';

/** Leave the session clean for the next task: a transaction the script left open is rolled back. */
export const ROLLBACK = 'ROLLBACK';
