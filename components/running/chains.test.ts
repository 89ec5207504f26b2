import { describe, expect, it } from 'vitest';
import { blockerLabel, blockingChains, type ChainRow } from './chains';

const row = (attemptId: number, session: number | null, blockingSession: number | null = null, live = true): ChainRow => ({
  attemptId,
  token: `t${attemptId}`,
  session,
  live: live ? { blockingSession } : null,
});
const order = (rows: ChainRow[]) => {
  const c = blockingChains(rows);
  return c.rows.map((r) => [r.attemptId, c.info.get(r.attemptId)!.depth]);
};

describe('blockingChains', () => {
  it('lists a blocked task under its blocker, keeping the order of heads', () => {
    const rows = [row(1, 61, 63), row(2, 62), row(3, 63), row(4, 64, 61)];
    expect(order(rows)).toEqual([
      [2, 0],
      [3, 0],
      [1, 1],
      [4, 2],
    ]);
    const { info } = blockingChains(rows);
    expect(info.get(1)).toEqual({ depth: 1, blocker: { session: 63, token: 't3' }, blocking: 1 });
    expect(info.get(3)).toEqual({ depth: 0, blocker: null, blocking: 1 });
    expect(info.get(4)!.blocker).toEqual({ session: 61, token: 't1' });
  });

  it('names a blocker outside our tasks by its session only', () => {
    const { rows, info } = blockingChains([row(1, 61, 99), row(2, 62)]);
    expect(rows.map((r) => r.attemptId)).toEqual([1, 2]);
    expect(info.get(1)).toEqual({ depth: 0, blocker: { session: 99, token: null }, blocking: 0 });
  });

  it('treats rows without live state or session, 0 and self-blocking as unblocked', () => {
    const rows = [row(1, null), row(2, 62, null, false), row(3, 63, 0), row(4, 64, 64)];
    expect(order(rows)).toEqual([
      [1, 0],
      [2, 0],
      [3, 0],
      [4, 0],
    ]);
    expect([...blockingChains(rows).info.values()].every((i) => i.blocker === null && i.blocking === 0)).toBe(true);
  });

  it('lists every row once even when the snapshot shows a cycle', () => {
    const rows = [row(1, 61, 62), row(2, 62, 61), row(3, 63)];
    const c = blockingChains(rows);
    expect(c.rows.map((r) => r.attemptId).sort()).toEqual([1, 2, 3]);
    expect(c.info.get(1)!.depth).toBe(0);
    expect(c.info.get(2)!.depth).toBe(1);
  });

  it('several tasks blocked by one', () => {
    const rows = [row(1, 61, 60), row(2, 62, 60), row(3, 60)];
    expect(order(rows)).toEqual([
      [3, 0],
      [1, 1],
      [2, 1],
    ]);
    expect(blockingChains(rows).info.get(3)!.blocking).toBe(2);
  });
});

describe('blockerLabel', () => {
  it('explains the negative ids', () => {
    expect(blockerLabel(57)).toBe('SPID 57');
    expect(blockerLabel(-2)).toContain('orphaned distributed transaction');
  });
});
