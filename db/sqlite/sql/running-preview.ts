// SQL of the payload preview on ExecutionStatus rows (Running page): the first characters of each running
// task's payload, looked up by token (unique index Tasks_token), one statement for the whole list.

/** Characters of a payload shown beside a running attempt. */
export const PREVIEW_CHARS = 200;

/** (tokens: JSON array of task tokens) → token, preview (first PREVIEW_CHARS characters), len */
export const PAYLOAD_PREVIEW = `SELECT t.token, substr(t.payload, 1, ${PREVIEW_CHARS}) AS preview, length(t.payload) AS len
      FROM Tasks t WHERE t.token IN (SELECT value FROM json_each(?))`;
