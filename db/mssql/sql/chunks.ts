// Statements below lock escalation. SQL Server escalates to a table lock when ONE STATEMENT takes about 5,000 locks
// on one table or index (or lock memory runs high) — and READPAST does not skip a table lock, so every claim,
// heartbeat and finish would wait behind it until that transaction commits. The count is per statement and per
// object, not per transaction: a transaction may hold 30,000 row locks on Tasks taken by statements of at most
// ESCALATION_CHUNK rows each and never escalate. So every write that can touch an unbounded number of rows of one
// table — a flow's 10,000 nodes and 20,000 edges, a whole flow cancelled or retried, a parent's 9,999 children
// released or cancelled, bulk actions, pruning — is cut into statements of at most ESCALATION_CHUNK rows, inside the
// one transaction that keeps it atomic (the locks are held to commit either way: chunking bounds each statement, not
// the transaction). ALTER TABLE … SET (LOCK_ESCALATION = DISABLE) was the other way: it moves the problem to lock
// memory (escalation still happens under memory pressure) and to every table it is set on; AUTO only matters for
// partitioned tables. What each statement writes, and why the few not cut are bounded, is said where it is written
// (chunks.test.ts checks the loops and the bound).
//
// The pattern used for an UPDATE joined to a set (a cascade's children, a flow's nodes): the set is read first into
// a table variable numbered in id order (ROW_NUMBER; the rising id order the lock order of sql/claim.ts asks of Tasks),
// then updated ESCALATION_CHUNK numbers at a time, each statement re-checking its rows' state.

/** Rows per statement of a multi-row write: far below the ~5,000 locks per statement that escalate. */
export const ESCALATION_CHUNK = 1000;

/**
 * @cx: a numbered set of task ids (with the parent or count a step needs) for chunked updates; @cx_at / @cx_last: the
 * loop over it. Declared once per batch (sql/edges.ts DECLARE_EDGES).
 */
export const DECLARE_CHUNKS = `DECLARE @cx TABLE (rn int NOT NULL PRIMARY KEY, id bigint NOT NULL, parent_id bigint NULL, n int NULL);
DECLARE @cx_at int, @cx_last int;`;

/** The rows of this chunk, for a numbered table variable aliased `x` (see inChunks). */
export const IN_CHUNK = `x.rn > @cx_at AND x.rn <= @cx_at + ${ESCALATION_CHUNK}`;

/**
 * Run `statement` once per ESCALATION_CHUNK numbers of `list` (a table variable with rn 1..n); the statement reads
 * `list` as `x` and keeps to IN_CHUNK.
 */
export const inChunks = (list: string, statement: string) => `SET @cx_at = 0;
  SET @cx_last = (SELECT COALESCE(MAX(x.rn), 0) FROM ${list} AS x);
  WHILE @cx_at < @cx_last
  BEGIN
    ${statement}
    SET @cx_at = @cx_at + ${ESCALATION_CHUNK};
  END;`;
