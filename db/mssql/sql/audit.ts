// T-SQL of the audit trail (readpast.AuditLog): appended by every mutation, read newest first.

export const INSERT_AUDIT = `INSERT INTO readpast.AuditLog (at, actor, source, action, target, before_json, after_json, n)
VALUES (SYSUTCDATETIME(), @actor, @source, @action, @target, @before_json, @after_json, @n);`;

/** newest first below @cursor; each filter NULL when not given (@action_prefix is a LIKE pattern) */
export const LIST_AUDIT = `SELECT TOP (@limit) a.id, a.at, a.actor, a.source, a.action, a.target, a.before_json, a.after_json, a.n
FROM readpast.AuditLog AS a
WHERE a.id < @cursor
  AND (@action IS NULL OR a.action = @action)
  AND (@action_prefix IS NULL OR a.action LIKE @action_prefix ESCAPE '\\')
  AND (@target IS NULL OR a.target = @target)
  AND (@actor IS NULL OR a.actor = @actor)
ORDER BY a.id DESC;`;

/** A command's audit row, written inside its transaction (audit.ts audited); returns its id. */
export const INSERT_AUDIT_ROW = `INSERT INTO readpast.AuditLog (at, actor, source, action, target, before_json, after_json, n)
OUTPUT inserted.id
VALUES (SYSUTCDATETIME(), @actor, @source, @action, @target, @before_json, @after_json, @n);`;

/** A later transaction of the same action (a bulk round or chunk) says what has been committed so far. */
export const UPDATE_AUDIT_ROW = `UPDATE readpast.AuditLog SET after_json = @after_json, n = @n WHERE id = @id;`;
