// Blocking chains between running tasks (SQL Server): a task whose request is blocked by the session
// of another running task is listed under it, one level deeper; a blocker that runs no task of ours
// is named by its session only.

export interface ChainRow {
  attemptId: number;
  token: string;
  session: number | null;
  live: { blockingSession: number | null } | null;
}

export interface ChainInfo {
  /** 0 for a task nobody of ours blocks; n for the n-th task down a chain */
  depth: number;
  /** the session blocking this task's request, and the task running on it (null: not one of ours) */
  blocker: { session: number; token: string | null } | null;
  /** how many running tasks this one blocks directly */
  blocking: number;
}

/** Rows reordered so each blocked task follows its blocker (depth-first), with each row's place in its chain. */
export function blockingChains<T extends ChainRow>(rows: readonly T[]): { rows: T[]; info: Map<number, ChainInfo> } {
  const bySession = new Map<number, T>();
  for (const r of rows) if (r.session !== null && !bySession.has(r.session)) bySession.set(r.session, r);

  const parentOf = (r: T): T | null => {
    const b = r.live?.blockingSession ?? null;
    if (b === null || b === 0 || b === r.session) return null;
    return bySession.get(b) ?? null;
  };

  const children = new Map<number, T[]>();
  for (const r of rows) {
    const p = parentOf(r);
    if (p) {
      const list = children.get(p.attemptId) ?? [];
      list.push(r);
      children.set(p.attemptId, list);
    }
  }

  const out: T[] = [];
  const info = new Map<number, ChainInfo>();
  const visit = (r: T, depth: number) => {
    if (info.has(r.attemptId)) return;
    const b = r.live?.blockingSession ?? null;
    const kids = children.get(r.attemptId) ?? [];
    info.set(r.attemptId, {
      depth,
      blocker: b !== null && b !== 0 && b !== r.session ? { session: b, token: bySession.get(b)?.token ?? null } : null,
      blocking: kids.length,
    });
    out.push(r);
    for (const k of kids) visit(k, depth + 1);
  };
  // heads first (not blocked by one of ours), in the order given; then whatever a cycle left over
  for (const r of rows) if (!parentOf(r)) visit(r, 0);
  for (const r of rows) visit(r, 0);
  return { rows: out, info };
}

/** SQL Server's negative blocking_session_id values name no session. */
export function blockerLabel(session: number): string {
  switch (session) {
    case -2:
      return 'an orphaned distributed transaction (SPID -2)';
    case -3:
      return 'a deferred recovery transaction (SPID -3)';
    case -4:
      return 'a latch owner not yet known (SPID -4)';
    case -5:
      return 'an asynchronous action (SPID -5)';
    default:
      return `SPID ${session}`;
  }
}
