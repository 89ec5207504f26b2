// Concurrency tokens, Taskling's way: a limited queue owns tokens 1..limit in ConcurrencyTokens. A
// claim writes the queue row first (its lock column), reads the tokens, brings their number in line
// with the current limit, and grants a free one — or one whose grantee no longer holds its task.
// Unlimited queues have no tokens and pay nothing.
import type { QueueChange, QueuePatch, QueueSettings, QueueView, TokenView } from '../../lib/engine/types';
import type { Db } from './connection';
import { queueSettings, type QueueRow } from './rows';
import { stmt } from './tally';

const QUEUE_COLUMNS = 'name, concurrency_limit, paused, max_attempts, timeout_ms, backoff_ms';

/** A token is held while its grantee attempt still owns a running task with a live lease. */
const HELD = `t.status = 'running' AND t.attempts = c.attempt AND t.lease_until >= ?`;

export interface Capacity {
  /** queues no task may be claimed from now: paused, or limited with no token to grant */
  excluded: string[];
  /** tokens still grantable per limited queue */
  free: Map<string, number>;
}

export function capacity(db: Db, now: number): Capacity {
  const queues = stmt(db, 'SELECT name, concurrency_limit, paused FROM Queues WHERE paused = 1 OR concurrency_limit IS NOT NULL').all() as
    { name: string; concurrency_limit: number | null; paused: number }[];
  const excluded: string[] = [];
  const free = new Map<string, number>();
  for (const q of queues) {
    if (q.paused) { excluded.push(q.name); continue; }
    const held = (stmt(db, `SELECT COUNT(*) AS n FROM ConcurrencyTokens c JOIN Tasks t ON t.id = c.task_id
        WHERE c.queue = ? AND c.status = 'granted' AND ${HELD}`).get(q.name, now) as { n: number }).n;
    const n = Math.max(0, q.concurrency_limit! - held);
    free.set(q.name, n);
    if (n === 0) excluded.push(q.name);
  }
  return { excluded, free };
}

/**
 * Grant a token of `queue` to an attempt, in the claim's transaction. Returns the token number, or
 * null when none can be granted (then the task must not start).
 */
export function grantToken(db: Db, queue: string, grantee: { taskId: number; attempt: number; workerId: string }, now: number): number | null {
  // 1. write the queue row first: its lock serialises grants for this queue (on SQL Server for real)
  const q = stmt(db, 'UPDATE Queues SET lock_version = lock_version + 1 WHERE name = ? RETURNING concurrency_limit').get(queue) as
    { concurrency_limit: number | null } | undefined;
  if (!q || q.concurrency_limit === null) return null;
  const limit = q.concurrency_limit;
  // 2. bring the tokens in line with the limit: create missing ones, drop free ones above it
  const have = (stmt(db, 'SELECT COUNT(*) AS n FROM ConcurrencyTokens WHERE queue = ? AND token_no <= ?').get(queue, limit) as { n: number }).n;
  if (have < limit) {
    const add = stmt(db, 'INSERT INTO ConcurrencyTokens (queue, token_no) VALUES (?, ?) ON CONFLICT (queue, token_no) DO NOTHING');
    for (let n = 1; n <= limit; n++) add.run(queue, n);
  }
  stmt(db, `DELETE FROM ConcurrencyTokens AS c WHERE c.queue = ? AND c.token_no > ? AND (c.status = 'free'
      OR NOT EXISTS (SELECT 1 FROM Tasks t WHERE t.id = c.task_id AND ${HELD}))`).run(queue, limit, now);
  // 3. never more grants than the limit, whatever tokens above it are still held
  const held = (stmt(db, `SELECT COUNT(*) AS n FROM ConcurrencyTokens c JOIN Tasks t ON t.id = c.task_id
      WHERE c.queue = ? AND c.status = 'granted' AND ${HELD}`).get(queue, now) as { n: number }).n;
  if (held >= limit) return null;
  // 4. the lowest token that is free, or whose grantee lost its task
  const tok = stmt(db, `SELECT c.token_no FROM ConcurrencyTokens c WHERE c.queue = ? AND c.token_no <= ?
      AND (c.status = 'free' OR NOT EXISTS (SELECT 1 FROM Tasks t WHERE t.id = c.task_id AND ${HELD}))
      ORDER BY c.token_no LIMIT 1`).get(queue, limit, now) as { token_no: number } | undefined;
  if (!tok) return null;
  stmt(db, `UPDATE ConcurrencyTokens SET status = 'granted', task_id = ?, attempt = ?, worker_id = ?, granted_at = ?
      WHERE queue = ? AND token_no = ?`).run(grantee.taskId, grantee.attempt, grantee.workerId, now, queue, tok.token_no);
  return tok.token_no;
}

/** Release the token an attempt holds (fenced on the attempt); a token above a lowered limit is dropped. */
export function releaseToken(db: Db, queue: string, tokenNo: number, taskId: number, attempt: number): void {
  stmt(db, `UPDATE ConcurrencyTokens SET status = 'free', task_id = NULL, attempt = NULL, worker_id = NULL, granted_at = NULL
      WHERE queue = ? AND token_no = ? AND task_id = ? AND attempt = ?`).run(queue, tokenNo, taskId, attempt);
  stmt(db, `DELETE FROM ConcurrencyTokens WHERE queue = ? AND token_no = ? AND status = 'free'
      AND token_no > COALESCE((SELECT concurrency_limit FROM Queues WHERE name = ?), 0)`).run(queue, tokenNo, queue);
}

export function getQueue(db: Db, name: string): QueueSettings | null {
  const row = stmt(db, `SELECT ${QUEUE_COLUMNS} FROM Queues WHERE name = ?`).get(name) as QueueRow | undefined;
  return row ? queueSettings(row) : null;
}

export function ensureQueue(db: Db, name: string, now: number): QueueRow {
  stmt(db, 'INSERT INTO Queues (name, created_at) VALUES (?, ?) ON CONFLICT (name) DO NOTHING').run(name, now);
  return stmt(db, `SELECT ${QUEUE_COLUMNS} FROM Queues WHERE name = ?`).get(name) as QueueRow;
}

/** Change a queue's limit / pause (creating the queue if needed); every change is recorded. */
export function setQueue(db: Db, name: string, patch: QueuePatch, changedBy: string, now: number): QueueSettings {
  const before = ensureQueue(db, name, now);
  const log = stmt(db, 'INSERT INTO QueueChanges (queue, at, changed_by, field, old_value, new_value) VALUES (?, ?, ?, ?, ?, ?)');
  const show = (v: number | null) => (v === null ? 'unlimited' : String(v));
  if (patch.concurrencyLimit !== undefined && patch.concurrencyLimit !== before.concurrency_limit) {
    stmt(db, 'UPDATE Queues SET concurrency_limit = ? WHERE name = ?').run(patch.concurrencyLimit, name);
    log.run(name, now, changedBy, 'concurrencyLimit', show(before.concurrency_limit), show(patch.concurrencyLimit));
    if (patch.concurrencyLimit === null) stmt(db, "DELETE FROM ConcurrencyTokens WHERE queue = ? AND status = 'free'").run(name);
    else stmt(db, "DELETE FROM ConcurrencyTokens WHERE queue = ? AND status = 'free' AND token_no > ?").run(name, patch.concurrencyLimit);
  }
  if (patch.paused !== undefined && (patch.paused ? 1 : 0) !== before.paused) {
    stmt(db, 'UPDATE Queues SET paused = ? WHERE name = ?').run(patch.paused ? 1 : 0, name);
    log.run(name, now, changedBy, 'paused', String(before.paused === 1), String(patch.paused));
  }
  return getQueue(db, name)!;
}

export function listQueueViews(db: Db, now: number): QueueView[] {
  const rows = stmt(db, `SELECT q.name, q.concurrency_limit, q.paused, q.max_attempts, q.timeout_ms, q.backoff_ms,
      COALESCE((SELECT n FROM QueueCounts c WHERE c.queue = q.name AND c.status = 'pending'), 0) AS pending,
      COALESCE((SELECT n FROM QueueCounts c WHERE c.queue = q.name AND c.status = 'running'), 0) AS running,
      (SELECT COUNT(*) FROM ConcurrencyTokens c JOIN Tasks t ON t.id = c.task_id
        WHERE c.queue = q.name AND c.status = 'granted' AND ${HELD}) AS granted
      FROM Queues q ORDER BY q.name`).all(now) as (QueueRow & { pending: number; running: number; granted: number })[];
  return rows.map((r) => ({ ...queueSettings(r), pending: r.pending, running: r.running, granted: r.granted }));
}

export function queueChanges(db: Db, queue: string | null, limit: number): QueueChange[] {
  const rows = (queue
    ? stmt(db, 'SELECT * FROM QueueChanges WHERE queue = ? ORDER BY id DESC LIMIT ?').all(queue, limit)
    : stmt(db, 'SELECT * FROM QueueChanges ORDER BY id DESC LIMIT ?').all(limit)) as
    { id: number; queue: string; at: number; changed_by: string; field: string; old_value: string; new_value: string }[];
  return rows.map((r) => ({
    id: r.id, queue: r.queue, at: new Date(r.at), changedBy: r.changed_by,
    field: r.field as QueueChange['field'], oldValue: r.old_value, newValue: r.new_value,
  }));
}

export function listTokens(db: Db, queue: string | null, now: number, staleWorkerMs: number): TokenView[] {
  const rows = stmt(db, `SELECT c.queue, c.token_no, c.status, c.attempt, c.worker_id, c.granted_at, t.token,
      w.session, w.heartbeat_at, w.state AS worker_state,
      CASE WHEN c.status = 'granted' AND NOT EXISTS (SELECT 1 FROM Tasks t WHERE t.id = c.task_id AND ${HELD}) THEN 1 ELSE 0 END AS lost
      FROM ConcurrencyTokens c LEFT JOIN Tasks t ON t.id = c.task_id LEFT JOIN Workers w ON w.worker_id = c.worker_id
      WHERE (? IS NULL OR c.queue = ?) ORDER BY c.queue, c.token_no LIMIT 2000`).all(now, queue, queue) as
    { queue: string; token_no: number; status: string; attempt: number | null; worker_id: string | null; granted_at: number | null;
      token: string | null; session: number | null; heartbeat_at: number | null; worker_state: string | null; lost: number }[];
  return rows.map((r) => ({
    queue: r.queue,
    tokenNo: r.token_no,
    status: r.status as TokenView['status'],
    token: r.status === 'granted' ? r.token : null,
    attempt: r.attempt,
    workerId: r.worker_id,
    session: r.session,
    grantedAt: r.granted_at === null ? null : new Date(r.granted_at),
    holderDead: r.status === 'granted' && (r.lost === 1 || r.worker_state === 'lost' || r.worker_state === 'stopped'
      || (r.heartbeat_at !== null && now - r.heartbeat_at > staleWorkerMs)),
  }));
}
