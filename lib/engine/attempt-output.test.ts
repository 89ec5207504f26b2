// The attempt output buffer and its flusher: bounded memory, one write for many lines and attempts,
// refusal stops an attempt's output, a failed write is kept for the next.
import { describe, expect, it } from 'vitest';
import {
  AttemptOutputBuffer,
  cleanLine,
  cleanProgress,
  MAX_ATTEMPT_BYTES,
  MAX_ATTEMPT_LINES,
  MAX_LINE_CHARS,
  OutputFlusher,
} from './attempt-output';
import type { AttemptOutputBatch } from './types';

describe('AttemptOutputBuffer', () => {
  it('keeps the last lines within the count bound and counts the rest', () => {
    const b = new AttemptOutputBuffer(1, 1, 'w');
    for (let i = 1; i <= 100_000; i++) b.log('log', `line ${i}`);
    expect(b.size).toBe(MAX_ATTEMPT_LINES);
    const t = b.take();
    expect(t.lines[0]!.line).toBe(`line ${100_000 - MAX_ATTEMPT_LINES + 1}`);
    expect(t.lines.at(-1)!.line).toBe('line 100000');
    expect(t.dropped).toBe(100_000 - MAX_ATTEMPT_LINES);
    expect(b.dirty).toBe(false);
  });

  it('keeps the bytes bound and cuts long lines', () => {
    const b = new AttemptOutputBuffer(1, 1, 'w');
    for (let i = 0; i < 100; i++) b.log('log', 'é'.repeat(MAX_LINE_CHARS * 2));
    const t = b.take();
    expect(t.lines[0]!.line.length).toBe(MAX_LINE_CHARS);
    expect(t.lines[0]!.line.endsWith('…')).toBe(true);
    const bytes = t.lines.reduce((n, l) => n + Buffer.byteLength(l.line), 0);
    expect(bytes).toBeLessThanOrEqual(MAX_ATTEMPT_BYTES);
    expect(t.lines.length + t.dropped).toBe(100);
    expect(t.dropped).toBeGreaterThan(0);
  });

  it('cleans lines and progress', () => {
    expect(cleanLine({ a: 1 })).toBe('{"a":1}');
    expect(cleanLine('a\u0000b\tc\nd')).toBe('ab\tc\nd');
    expect(cleanProgress(140, '  half  ', new Date(0))).toMatchObject({ percent: 100, message: 'half' });
    expect(cleanProgress(-3, '', new Date(0))).toMatchObject({ percent: 0, message: null });
    expect(() => cleanProgress(Number.NaN, null, new Date(0))).toThrow(/percent/);
  });

  it('keeps the latest progress', () => {
    const b = new AttemptOutputBuffer(1, 1, 'w');
    b.report(10, 'a');
    b.report(20, 'b');
    expect(b.take().progress).toMatchObject({ percent: 20, message: 'b' });
    expect(b.take().progress).toBeNull();
  });
});

describe('OutputFlusher', () => {
  function port(answer: (b: AttemptOutputBatch[]) => boolean[] | Error = (b) => b.map(() => true)) {
    const writes: AttemptOutputBatch[][] = [];
    return {
      writes,
      appendAttemptOutput: async (batch: AttemptOutputBatch[]) => {
        writes.push(batch);
        const a = answer(batch);
        if (a instanceof Error) throw a;
        return a;
      },
    };
  }

  it('writes every attempt’s pending output in one call, nothing when nothing changed', async () => {
    const p = port();
    const f = new OutputFlusher(p, 60_000);
    const a = f.openAttempt(1, 1, 'w1');
    const b = f.openAttempt(2, 3, 'w2');
    for (let i = 0; i < 5000; i++) a.log('log', i);
    b.report(50, 'half');
    await f.flush();
    expect(p.writes).toHaveLength(1);
    expect(p.writes[0]!.map((x) => [x.taskId, x.attempt, x.lines.length, x.dropped])).toEqual([
      [1, 1, MAX_ATTEMPT_LINES, 5000 - MAX_ATTEMPT_LINES],
      [2, 3, 0, 0],
    ]);
    await f.flush();
    expect(p.writes).toHaveLength(1);
    a.log('log', 'last');
    await f.close(a);
    await f.close(b);
    expect(p.writes).toHaveLength(2);
    expect(p.writes[1]!.map((x) => x.lines.map((l) => l.line))).toEqual([['last']]);
  });

  it('stops keeping the output of an attempt the store refused', async () => {
    const p = port((b) => b.map((x) => x.taskId !== 1));
    const f = new OutputFlusher(p, 60_000);
    const stale = f.openAttempt(1, 1, 'w1');
    stale.log('log', 'x');
    await f.flush();
    expect(stale.refused).toBe(true);
    stale.log('log', 'y');
    expect(stale.dirty).toBe(false);
    await f.close(stale);
    expect(p.writes).toHaveLength(1);
  });

  it('keeps a failed write’s output for the next', async () => {
    let fail = true;
    const p = port((b) => (fail ? new Error('database down') : b.map(() => true)));
    const errors: unknown[] = [];
    const f = new OutputFlusher(p, 60_000, (e) => errors.push(e));
    const a = f.openAttempt(1, 1, 'w1');
    a.log('log', 'one');
    await f.flush();
    expect(errors).toHaveLength(1);
    a.log('log', 'two');
    fail = false;
    await f.close(a);
    expect(p.writes.at(-1)![0]!.lines.map((l) => l.line)).toEqual(['one', 'two']);
  });
});
