// T-SQL of the payload preview on ExecutionStatus rows (Running page): the first characters of each running
// task's payload, looked up by token (UX_Tasks_token), one statement for the whole list.

/** Characters of a payload shown beside a running attempt. */
export const PREVIEW_CHARS = 200;

/** @tokens: JSON array of task tokens → token, preview (first PREVIEW_CHARS characters), len */
export const PAYLOAD_PREVIEW = `SELECT t.token, LEFT(t.payload, ${PREVIEW_CHARS}) AS preview, LEN(t.payload) AS len
FROM readpast.Tasks AS t
WHERE t.token IN (SELECT TRY_CAST(j.value AS uniqueidentifier) FROM OPENJSON(@tokens) AS j);`;
