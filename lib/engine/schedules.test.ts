import { describe, expect, it } from 'vitest';
import { ValidationError } from './errors';
import { canonicalZone, cronProblem, describeCron, graceMs, nextFireAfter, nextFires, planFires, type FireState } from './schedules';
import { validateSchedule } from './validation';

const iso = (d: Date[]) => d.map((x) => x.toISOString());
const at = (s: string) => new Date(s);

describe('cron expressions', () => {
  it('accepts 5 fields, 6 with seconds first, and nicknames; names what is wrong otherwise', () => {
    for (const ok of ['* * * * *', '*/5 * * * *', '0 2 * * 1-5', '*/10 * * * * *', '0 30 9 * * MON', '@daily', '0 0 29 2 *']) {
      expect(cronProblem(ok), ok).toBeNull();
    }
    expect(cronProblem('')).toBe('required');
    expect(cronProblem('* * * *')).toBe('has 4 fields; a cron expression has 5 (minute hour day month weekday), or 6 with seconds first');
    expect(cronProblem('* * * * * * *')).toMatch(/^has 7 fields/);
    expect(cronProblem('* * * * mon-xyz')).toMatch(/^not a cron expression \(5 fields, or 6 with seconds first\)/);
    expect(cronProblem('61 * * * *')).toMatch(/minute/);
    expect(cronProblem('0 0 31 2 *')).toBe('never fires (no date matches every field)');
    expect(cronProblem('x'.repeat(300))).toMatch(/longer than/);
  });

  it('reads 6-field expressions to the second', () => {
    expect(iso(nextFires('*/15 * * * * *', 'UTC', at('2025-01-01T00:00:07.400Z'), 3))).toEqual([
      '2025-01-01T00:00:15.000Z',
      '2025-01-01T00:00:30.000Z',
      '2025-01-01T00:00:45.000Z',
    ]);
    expect(iso(nextFires('30 0 9 * * 1-5', 'UTC', at('2025-01-03T10:00:00Z'), 2))).toEqual([
      '2025-01-06T09:00:30.000Z', // Friday 10:00 → Monday 09:00:30
      '2025-01-07T09:00:30.000Z',
    ]);
  });

  it('fires strictly after the given time', () => {
    expect(nextFireAfter('0 * * * *', 'UTC', at('2025-01-01T10:00:00.000Z'))?.toISOString()).toBe('2025-01-01T11:00:00.000Z');
  });

  it('keeps local wall time across DST changes, once per day on both change days (Europe/Berlin)', () => {
    // spring forward 2025-03-30 02:00 CET → 03:00 CEST: 02:30 does not exist that day; croner fires at 03:30 CEST
    expect(iso(nextFires('30 2 * * *', 'Europe/Berlin', at('2025-03-28T12:00:00Z'), 3))).toEqual([
      '2025-03-29T01:30:00.000Z', // 02:30 CET (UTC+1)
      '2025-03-30T01:30:00.000Z', // the gap: 03:30 CEST
      '2025-03-31T00:30:00.000Z', // 02:30 CEST (UTC+2)
    ]);
    // fall back 2025-10-26 03:00 CEST → 02:00 CET: 02:30 happens twice; it fires once, at the first
    expect(iso(nextFires('30 2 * * *', 'Europe/Berlin', at('2025-10-25T12:00:00Z'), 2))).toEqual([
      '2025-10-26T00:30:00.000Z', // 02:30 CEST, the first of the two
      '2025-10-27T01:30:00.000Z', // 02:30 CET
    ]);
    // 09:00 every weekday in New York: 14:00Z in winter, 13:00Z in summer
    expect(iso(nextFires('0 9 * * 1-5', 'America/New_York', at('2025-03-07T15:00:00Z'), 2))).toEqual([
      '2025-03-10T13:00:00.000Z', // Monday after the change (EDT, UTC-4)
      '2025-03-11T13:00:00.000Z',
    ]);
    expect(iso(nextFires('0 9 * * 1-5', 'America/New_York', at('2025-03-06T15:00:00Z'), 1))).toEqual(['2025-03-07T14:00:00.000Z']);
  });

  it('canonical time zones; words for an expression', () => {
    expect(canonicalZone('utc')).toBe('UTC');
    expect(canonicalZone('Europe/Berlin')).toBe('Europe/Berlin');
    expect(canonicalZone('Mars/Base')).toBeNull();
    expect(canonicalZone('')).toBeNull();
    expect(describeCron('*/5 * * * *')).toBe('Every 5 minutes');
    expect(describeCron('0 2 * * 1-5')).toBe('At 02:00, Monday through Friday');
    expect(describeCron('*/10 * * * * *')).toBe('Every 10 seconds');
  });
});

describe('planFires', () => {
  const state = (over: Partial<FireState>): FireState => ({
    cron: '* * * * *',
    timezone: 'UTC',
    misfire: 'skip',
    overlap: 'allow',
    nextFireAt: at('2025-01-01T10:00:00Z'),
    ...over,
  });

  it('does nothing before the next fire time', () => {
    const p = planFires(state({}), at('2025-01-01T09:59:59.900Z'), false);
    expect(p).toEqual({ fires: [], missed: 0, missedSince: null, overlapped: 0, next: at('2025-01-01T10:00:00Z') });
  });

  it('fires a due tick and moves to the first tick after now', () => {
    const p = planFires(state({}), at('2025-01-01T10:00:01.500Z'), false);
    expect(iso(p.fires)).toEqual(['2025-01-01T10:00:00.000Z']);
    expect(p.next?.toISOString()).toBe('2025-01-01T10:01:00.000Z');
    expect(p.missed).toBe(0);
  });

  it('fires every tick of a fast schedule the checks were held up for, within its grace', () => {
    const s = state({ cron: '* * * * * *', nextFireAt: at('2025-01-01T10:00:00Z') });
    const p = planFires(s, at('2025-01-01T10:00:03.200Z'), false);
    expect(iso(p.fires)).toEqual([
      '2025-01-01T10:00:00.000Z',
      '2025-01-01T10:00:01.000Z',
      '2025-01-01T10:00:02.000Z',
      '2025-01-01T10:00:03.000Z',
    ]);
    expect(p.next?.toISOString()).toBe('2025-01-01T10:00:04.000Z');
    expect(graceMs(at('2025-01-01T10:00:00Z'), at('2025-01-01T10:00:01Z'))).toBe(5_000);
    expect(graceMs(at('2025-01-01T10:00:00Z'), at('2025-01-01T11:00:00Z'))).toBe(60_000);
  });

  it('after downtime, skip drops the missed ticks and run_once fires once for all of them', () => {
    // hourly; every process was down from before 02:00 until 05:30
    const hourly = { cron: '0 * * * *', nextFireAt: at('2025-01-01T02:00:00Z') };
    const now = at('2025-01-01T05:30:00Z');
    const skip = planFires(state({ ...hourly, misfire: 'skip' }), now, false);
    expect(skip.fires).toEqual([]);
    expect(skip.missedSince?.toISOString()).toBe('2025-01-01T02:00:00.000Z');
    expect(skip.next?.toISOString()).toBe('2025-01-01T06:00:00.000Z');
    const once = planFires(state({ ...hourly, misfire: 'run_once' }), now, false);
    expect(iso(once.fires)).toEqual(['2025-01-01T05:00:00.000Z']); // the latest missed tick stands for all
    expect(once.next?.toISOString()).toBe('2025-01-01T06:00:00.000Z');

    // every 10 s, down for 5 minutes: skip fires only what is within its grace; run_once fires one
    const fast = { cron: '*/10 * * * * *', nextFireAt: at('2025-01-01T10:00:00Z') };
    const later = at('2025-01-01T10:05:02Z');
    expect(iso(planFires(state({ ...fast, misfire: 'skip' }), later, false).fires)).toEqual(['2025-01-01T10:05:00.000Z']);
    const fastOnce = planFires(state({ ...fast, misfire: 'run_once' }), later, false);
    expect(iso(fastOnce.fires)).toEqual(['2025-01-01T10:05:00.000Z']);
    expect(fastOnce.next?.toISOString()).toBe('2025-01-01T10:05:10.000Z');

    // a daily tick 2 minutes late (a short outage) is missed under skip, run once under run_once
    const daily = { cron: '0 2 * * *', nextFireAt: at('2025-01-01T02:00:00Z') };
    const short = at('2025-01-01T02:02:00Z');
    expect(planFires(state({ ...daily, misfire: 'skip' }), short, false)).toMatchObject({ fires: [], missedSince: daily.nextFireAt });
    expect(iso(planFires(state({ ...daily, misfire: 'run_once' }), short, false).fires)).toEqual(['2025-01-01T02:00:00.000Z']);
    // and 50 s late it is still on time for both
    expect(iso(planFires(state({ ...daily, misfire: 'skip' }), at('2025-01-01T02:00:50Z'), false).fires)).toEqual([
      '2025-01-01T02:00:00.000Z',
    ]);
  });

  it('skip_if_running holds back while the previous fire is pending or running, and fires one tick at most', () => {
    const s = state({ overlap: 'skip_if_running' });
    const busy = planFires(s, at('2025-01-01T10:00:00.300Z'), true);
    expect(busy).toMatchObject({ fires: [], overlapped: 1 });
    expect(busy.next?.toISOString()).toBe('2025-01-01T10:01:00.000Z');
    expect(iso(planFires(s, at('2025-01-01T10:00:00.300Z'), false).fires)).toEqual(['2025-01-01T10:00:00.000Z']);
    const fast = state({ overlap: 'skip_if_running', cron: '* * * * * *' });
    const p = planFires(fast, at('2025-01-01T10:00:02.100Z'), false);
    expect(iso(p.fires)).toEqual(['2025-01-01T10:00:02.000Z']);
    expect(p.overlapped).toBe(2);
    // allow fires whatever the previous fire is doing
    expect(planFires(state({}), at('2025-01-01T10:00:00.300Z'), true).fires).toHaveLength(1);
  });
});

describe('schedule validation', () => {
  const ctx = { kinds: ['handler', 'sql'] as const, knowsHandler: (n: string) => n.startsWith('demo.') };
  const fieldOf = async (raw: unknown) => {
    try {
      await validateSchedule(raw, ctx);
    } catch (e) {
      expect(e).toBeInstanceOf(ValidationError);
      return (e as ValidationError).field;
    }
    throw new Error('accepted');
  };

  it('fills defaults and checks the task like an enqueue', async () => {
    expect(await validateSchedule({ name: 'nightly', cron: '0 2 * * *', command: 'demo.echo' }, ctx)).toEqual({
      name: 'nightly',
      cron: '0 2 * * *',
      timezone: 'UTC',
      kind: 'handler',
      command: 'demo.echo',
      payload: null,
      queue: 'default',
      priority: 0,
      maxAttempts: null,
      timeoutMs: null,
      misfire: 'skip',
      overlap: 'allow',
      enabled: true,
    });
    const r = await validateSchedule(
      { name: 'x', cron: ' */5 * * * * ', timezone: 'utc', command: 'demo.echo', maxAttempts: 2, misfire: 'run_once' },
      ctx,
    );
    expect(r).toMatchObject({ cron: '*/5 * * * *', timezone: 'UTC', maxAttempts: 2, misfire: 'run_once' });
  });

  it('names the field: a bad cron names cron, a bad zone names timezone', async () => {
    expect(await fieldOf({ name: 'x', cron: '* * *', command: 'demo.echo' })).toBe('cron');
    expect(await fieldOf({ name: 'x', cron: '* * * * *', timezone: 'Mars/Base', command: 'demo.echo' })).toBe('timezone');
    expect(await fieldOf({ name: 'bad name', cron: '* * * * *', command: 'demo.echo' })).toBe('name');
    expect(await fieldOf({ name: 'x', cron: '* * * * *', command: 'nope' })).toBe('command');
    expect(await fieldOf({ name: 'x', cron: '* * * * *', command: 'demo.echo', overlap: 'sometimes' })).toBe('overlap');
    expect(await fieldOf({ name: 'x', cron: '* * * * *', command: 'demo.echo', colour: 1 })).toBe('colour');
    await expect(validateSchedule({ name: 'x', cron: '* *', command: 'demo.echo' }, ctx, 'schedules.3')).rejects.toMatchObject({
      field: 'schedules.3.cron',
    });
  });
});
