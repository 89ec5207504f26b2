// Contract tests: an attempt's progress and log lines (appendAttemptOutput, attemptOutput, listRunning's
// progress): fenced like finish, bounded per attempt, read after a seq, gone with the task.
import { describe, expect, it } from 'vitest';
import { MAX_ATTEMPT_BYTES, MAX_ATTEMPT_LINES } from '../../lib/engine/attempt-output';
import type { AttemptOutputBatch, ClaimedTask, OutputLine, OutputStream } from '../../lib/engine/types';
import { sleep, useStore, type StoreFactory } from './harness';

const lines = (n: number, from = 1, stream: OutputStream = 'log', pad = ''): OutputLine[] =>
  Array.from({ length: n }, (_, i) => ({ stream, line: `line ${from + i}${pad}`, at: new Date() }));

const batchOf = (c: ClaimedTask, over: Partial<AttemptOutputBatch> = {}): AttemptOutputBatch => ({
  taskId: c.id,
  attempt: c.attempt,
  workerId: c.workerId,
  lines: [],
  dropped: 0,
  progress: null,
  ...over,
});

export function attemptLogsTests(factory: StoreFactory): void {
  describe('attempt logs', () => {
    const h = useStore(factory);

    it('keeps a running attempt’s lines in order and its latest progress; reads after a seq', async () => {
      const { store } = h();
      const slot = await h().worker();
      const token = await h().add();
      expect(await store.reads.attemptOutput(token)).toMatchObject({ attempt: 0, lines: [], progress: null, truncated: false });
      const c = await h().claimOne(slot);
      const at = new Date(Date.now() - 5_000);
      expect(
        await store.worker.appendAttemptOutput([
          batchOf(c, {
            lines: [
              { stream: 'log', line: 'starting', at },
              { stream: 'print', line: 'PRINT says ünïcödé', at },
              { stream: 'error', line: 'Msg 50000, Level 16, State 1\nbad', at },
            ],
            progress: { percent: 10, message: 'one of ten', at },
          }),
        ]),
      ).toEqual([true]);
      expect(
        await store.worker.appendAttemptOutput([batchOf(c, { lines: lines(2, 4), progress: { percent: 42.5, message: null, at } })]),
      ).toEqual([true]);

      const all = (await store.reads.attemptOutput(token))!;
      expect(all.attempt).toBe(1);
      expect(all.lines.map((l) => [l.seq, l.stream, l.line])).toEqual([
        [1, 'log', 'starting'],
        [2, 'print', 'PRINT says ünïcödé'],
        [3, 'error', 'Msg 50000, Level 16, State 1\nbad'],
        [4, 'log', 'line 4'],
        [5, 'log', 'line 5'],
      ]);
      expect(Math.abs(all.lines[0]!.at.getTime() - at.getTime())).toBeLessThan(2);
      expect(all).toMatchObject({ truncated: false, dropped: 0, next: 5 });
      expect(all.progress).toMatchObject({ percent: 42.5, message: null });

      const after = (await store.reads.attemptOutput(token, undefined, 3))!;
      expect(after.lines.map((l) => l.seq)).toEqual([4, 5]);
      expect(after.next).toBe(5);
      const none = (await store.reads.attemptOutput(token, undefined, 5))!;
      expect(none.lines).toEqual([]);
      expect(none.next).toBe(5);

      // Running carries the progress
      const running = await store.reads.listRunning();
      expect(running.find((r) => r.token === token)?.progress).toMatchObject({ percent: 42.5 });
      expect(await store.reads.attemptOutput('00000000-0000-4000-8000-000000000000')).toBeNull();
    });

    it('keeps the last lines within the bound, with a truncated mark and the count dropped', async () => {
      const { store } = h();
      const slot = await h().worker();
      const token = await h().add();
      const c = await h().claimOne(slot);
      // 1,200 lines in two writes, 30 more dropped by the worker before writing
      expect(await store.worker.appendAttemptOutput([batchOf(c, { lines: lines(700, 1) })])).toEqual([true]);
      expect(await store.worker.appendAttemptOutput([batchOf(c, { lines: lines(500, 701), dropped: 30 })])).toEqual([true]);
      const out = (await store.reads.attemptOutput(token))!;
      expect(out.lines).toHaveLength(MAX_ATTEMPT_LINES);
      expect(out.lines[0]!.line).toBe('line 201');
      expect(out.lines.at(-1)!.line).toBe('line 1200');
      expect(out.lines[0]!.seq).toBe(201);
      expect(out).toMatchObject({ truncated: true, dropped: 200 + 30, next: 1200 });

      // bytes: 1,000-byte lines, so the byte bound cuts first
      const t2 = await h().add();
      const c2 = await h().claimOne(slot);
      const big = 'x'.repeat(1000 - 'line 000'.length);
      expect(await store.worker.appendAttemptOutput([batchOf(c2, { lines: lines(300, 100, 'log', big) })])).toEqual([true]);
      const o2 = (await store.reads.attemptOutput(t2))!;
      const keep = Math.floor(MAX_ATTEMPT_BYTES / 1000);
      expect(o2.lines).toHaveLength(keep);
      expect(o2.dropped).toBe(300 - keep);
      expect(o2.lines.at(-1)!.line.startsWith('line 399')).toBe(true);
    });

    it('refuses the writes of an attempt that no longer owns its task (stale, another worker, settled)', async () => {
      const { store } = h();
      const a = await h().worker();
      const b = await h().worker();
      const token = await h().add({ maxAttempts: 3 });
      const first = await h().claimOne(a, { leaseMs: 100 });
      expect(await store.worker.appendAttemptOutput([batchOf(first, { lines: lines(1) })])).toEqual([true]);
      await sleep(250);
      // the lease has expired: refused even before the rescue
      expect(await store.worker.appendAttemptOutput([batchOf(first, { lines: lines(1, 2) })])).toEqual([false]);
      await store.maintenance.rescueExpired();
      const second = await h().claimOne(b);
      expect(second.attempt).toBe(2);

      const oks = await store.worker.appendAttemptOutput([
        batchOf(first, { lines: lines(1, 3), progress: { percent: 99, message: 'stale', at: new Date() } }),
        batchOf(second, { workerId: first.workerId, lines: lines(1, 4) }),
        batchOf(second, { lines: [{ stream: 'log', line: 'owner', at: new Date() }] }),
      ]);
      expect(oks).toEqual([false, false, true]);
      const now = (await store.reads.attemptOutput(token))!;
      expect(now.attempt).toBe(2);
      expect(now.lines.map((l) => l.line)).toEqual(['owner']);
      const old = (await store.reads.attemptOutput(token, 1))!;
      expect(old.lines.map((l) => l.line)).toEqual(['line 1']);
      expect(old.progress).toBeNull();

      expect(await h().succeed(second)).toBe(true);
      expect(await store.worker.appendAttemptOutput([batchOf(second, { lines: lines(1, 5) })])).toEqual([false]);
      expect((await store.reads.attemptOutput(token))!.lines).toHaveLength(1);
    });

    it('goes with its task', async () => {
      const { store } = h();
      const slot = await h().worker();
      const token = await h().add();
      const c = await h().claimOne(slot);
      await store.worker.appendAttemptOutput([batchOf(c, { lines: lines(3), progress: { percent: 50, message: 'half', at: new Date() } })]);
      expect(await h().kill(c)).toBe(true);
      expect((await store.reads.attemptOutput(token))!.lines).toHaveLength(3);
      expect(await store.commands.deleteTask(token)).toBe('deleted');
      expect(await store.reads.attemptOutput(token)).toBeNull();
    });
  });
}
