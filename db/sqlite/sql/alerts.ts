// SQL of alert rules (AlertRules) and their firings (AlertFirings), and the facts the rules read.

const RULE_COLUMNS = `id, name, kind, params, url, secret, format, dedup_ms, enabled, cursor_at, cursor_id,
        created_by, created_at, updated_by, updated_at`;

export const LIST_RULES = `SELECT ${RULE_COLUMNS} FROM AlertRules ORDER BY name`;

export const GET_RULE = `SELECT ${RULE_COLUMNS} FROM AlertRules WHERE id = ?`;

/** the id of a rule with this name other than ?2 (a name is unique) */
export const NAME_TAKEN = 'SELECT id FROM AlertRules WHERE name = ?1 AND id <> ?2';

/** (name, kind, params, url, secret, format, dedup_ms, enabled, by, at) */
export const INSERT_RULE = `INSERT INTO AlertRules (name, kind, params, url, secret, format, dedup_ms, enabled,
          created_by, created_at, updated_by, updated_at)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?9, ?10)`;

/** (name, kind, params, url, secret, format, dedup_ms, enabled, by, at, id); the cursor is kept */
export const UPDATE_RULE = `UPDATE AlertRules SET name = ?1, kind = ?2, params = ?3, url = ?4, secret = ?5, format = ?6,
          dedup_ms = ?7, enabled = ?8, updated_by = ?9, updated_at = ?10
        WHERE id = ?11`;

export const DELETE_RULE = 'DELETE FROM AlertRules WHERE id = ?';

/** (to_at, to_id, id, from_at, from_id): moves only from where it was read (IS: NULL-safe) */
export const MOVE_CURSOR = `UPDATE AlertRules SET cursor_at = ?1, cursor_id = ?2
        WHERE id = ?3 AND cursor_at IS ?4 AND cursor_id IS ?5`;

/** a firing of (rule, key) after a time: the dedup window */
export const RECENT_FIRING = `SELECT 1 FROM AlertFirings WHERE rule_id = ?1 AND dedup_key = ?2 AND fired_at > ?3 LIMIT 1`;

/** (rule_id, rule_name, dedup_key, fired_at, message, task_token, test) */
export const INSERT_FIRING = `INSERT INTO AlertFirings (rule_id, rule_name, dedup_key, fired_at, message, task_token, status, test)
        VALUES (?, ?, ?, ?, ?, ?, 'queued', ?)`;

/** newest first below a cursor id, of one rule or all; with the delivery task's status */
export const LIST_FIRINGS = `SELECT f.id, f.rule_id, f.rule_name, f.dedup_key, f.fired_at, f.message, f.task_token, f.status, f.test,
          t.status AS task_status
        FROM AlertFirings f LEFT JOIN Tasks t ON t.token = f.task_token
        WHERE f.id < ?1 AND (?2 IS NULL OR f.rule_id = ?2)
        ORDER BY f.id DESC LIMIT ?3`;

/** firings older than a time, at most 500 a call */
export const PRUNE_FIRINGS = `DELETE FROM AlertFirings WHERE id IN (SELECT id FROM AlertFirings WHERE fired_at < ? LIMIT 500)`;

/**
 * Dead tasks after the cursor (?1 finished_at, ?2 id), finished by ?3, of queue ?4 / command ?5 (NULL: any),
 * oldest first, at most ?6 (index Tasks_dead_at).
 */
export const DEAD_SINCE = `SELECT id, token, queue, command, finished_at, error_message FROM Tasks
        WHERE status = 'dead' AND finished_at >= ?1 AND (finished_at > ?1 OR id > ?2) AND finished_at <= ?3
          AND (?4 IS NULL OR queue = ?4) AND (?5 IS NULL OR command = ?5)
        ORDER BY finished_at, id LIMIT ?6`;

/** the newest ended attempts of command ?1, at most ?2, among the last ?3 attempts of all (a bounded scan) */
export const RECENT_ATTEMPTS = `SELECT l.id, COALESCE(t.token, '') AS token, l.outcome, l.error_message
        FROM ExecutionLog l LEFT JOIN Tasks t ON t.id = l.task_id
        WHERE l.id > (SELECT COALESCE(MAX(id), 0) FROM ExecutionLog) - ?3 AND l.command = ?1 AND l.ended_at IS NOT NULL
        ORDER BY l.id DESC LIMIT ?2`;
