import { describe, expect, it } from 'vitest';
import { demoWorkload } from './demo';
import { validateEnqueue } from '../engine/validation';
import { defaultRegistry } from '../engine/handlers';

function seeded(seed: number) {
  return () => {
    seed = (seed * 1664525 + 1013904223) % 2 ** 32;
    return seed / 2 ** 32;
  };
}

describe('demoWorkload', () => {
  const now = Date.parse('2030-01-01T00:00:00Z');
  const tasks = demoWorkload({ random: seeded(7), now });

  it('is a realistic mix of 60–120 valid tasks over several queues', async () => {
    expect(tasks.length).toBeGreaterThanOrEqual(60);
    expect(tasks.length).toBeLessThanOrEqual(120);
    const registry = defaultRegistry();
    for (const t of tasks) {
      await validateEnqueue(t, { kinds: ['handler'], knowsHandler: (n) => registry.has(n) });
    }
    expect(new Set(tasks.map((t) => t.queue))).toEqual(new Set(['default', 'emails', 'reports', 'etl']));
    const commands = new Set(tasks.map((t) => t.command));
    for (const c of ['demo.sleep', 'demo.fail', 'demo.flaky', 'demo.echo']) expect(commands).toContain(c);
  });

  it('sleeps 200 ms to 8 s, fails with distinct messages and 2–3 attempts, delays and prioritises some', () => {
    const sleeps = tasks.filter((t) => t.command === 'demo.sleep').map((t) => (t.payload as { ms: number }).ms);
    expect(Math.min(...sleeps)).toBeGreaterThanOrEqual(200);
    expect(Math.max(...sleeps)).toBeLessThanOrEqual(8000);
    expect(Math.max(...sleeps)).toBeGreaterThan(3000);

    const fails = tasks.filter((t) => t.command === 'demo.fail');
    expect(new Set(fails.map((t) => (t.payload as { message: string }).message)).size).toBeGreaterThanOrEqual(5);
    for (const f of fails) expect([2, 3]).toContain(f.maxAttempts);

    const delayed = tasks.filter((t) => t.runAt !== undefined).map((t) => Date.parse(String(t.runAt)) - now);
    expect(delayed.length).toBeGreaterThan(0);
    for (const d of delayed) expect(d).toBeGreaterThanOrEqual(10_000);
    expect(new Set(tasks.map((t) => t.priority ?? 0)).size).toBeGreaterThan(1);
  });

  it('puts failures among the first tasks rather than after every sleep', () => {
    const firstFail = tasks.findIndex((t) => t.command === 'demo.fail');
    expect(firstFail).toBeLessThan(tasks.length / 2);
  });
});
