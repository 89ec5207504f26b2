// SQL of the audit trail (AuditLog): appended by every mutation, read newest first.

/** (at, actor, source, action, target, before_json, after_json, n) */
export const INSERT_AUDIT = `INSERT INTO AuditLog (at, actor, source, action, target, before_json, after_json, n)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)`;

/** (after_json, n, id): a later transaction of the same action says what has been committed so far */
export const UPDATE_AUDIT = 'UPDATE AuditLog SET after_json = ?, n = ? WHERE id = ?';

const AUDIT_COLUMNS = 'id, at, actor, source, action, target, before_json, after_json, n';

/**
 * Newest first below a cursor id. Parameters: cursor, action (exact, or NULL), actionPrefix (LIKE
 * pattern, or NULL), target (or NULL), actor (or NULL), limit. The NULL tests keep one statement for every filter.
 */
export const LIST_AUDIT = `SELECT ${AUDIT_COLUMNS} FROM AuditLog
        WHERE id < ?1
          AND (?2 IS NULL OR action = ?2)
          AND (?3 IS NULL OR action LIKE ?3 ESCAPE '\\')
          AND (?4 IS NULL OR target = ?4)
          AND (?5 IS NULL OR actor = ?5)
        ORDER BY id DESC LIMIT ?6`;

/** rows older than a time (pruning) */
export const PRUNE_AUDIT = 'DELETE FROM AuditLog WHERE at < ?';
