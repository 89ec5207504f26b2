// SQL of the Failed & poison page's groups: dead tasks by failure fingerprint, command and queue.

/** Dead tasks not yet fingerprinted (settled before migration 10, or made dead by a rescue): (limit) */
export const UNPRINTED = `SELECT id, error_number, error_message FROM Tasks
      WHERE status = 'dead' AND fingerprint IS NULL LIMIT ?`;

/** (fingerprint, id) */
export const SET_FINGERPRINT = "UPDATE Tasks SET fingerprint = ? WHERE id = ? AND status = 'dead' AND fingerprint IS NULL";

/** A page of groups over the failure filters (sql/operators.ts FAILURE_FILTER), largest first (…params, limit, offset). */
export function groupPageSql(filters: readonly string[]): string {
  return `SELECT fingerprint, command, queue, COUNT(*) AS count, MIN(finished_at) AS first_at, MAX(finished_at) AS last_at,
      MAX(id) AS last_id FROM Tasks WHERE ${filters.join(' AND ')}
      GROUP BY fingerprint, command, queue ORDER BY count DESC, last_at DESC, fingerprint, command, queue LIMIT ? OFFSET ?`;
}

/** Per group and hour since a time (…params, since, since): the trend. */
export function groupTrendSql(filters: readonly string[]): string {
  return `SELECT fingerprint, command, queue, CAST((finished_at - ?) / 3600000 AS INTEGER) AS bucket, COUNT(*) AS n FROM Tasks
      WHERE ${filters.join(' AND ')} AND finished_at >= ? GROUP BY fingerprint, command, queue, bucket`;
}

/** The newest task of a group (id). */
export const GROUP_SAMPLE = 'SELECT token, error_number, error_message FROM Tasks WHERE id = ?';
