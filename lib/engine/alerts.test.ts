// The alert rules as a pure function of facts: what fires, with which dedup key and message, where
// the cursors move; the webhook bodies and their signature.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ALERT_HANDLER, ALERT_QUEUE, type AlertRule, type AttemptFact, type DeadTaskFact } from './alert-types';
import { age, alertBody, firingWrite, planAlerts, signBody, testFiring, type AlertFacts } from './alerts';

const NOW = new Date('2026-11-24T10:00:00.000Z');
const ago = (ms: number) => new Date(NOW.getTime() - ms);

let ids = 0;
function rule(over: Partial<AlertRule> = {}): AlertRule {
  return {
    id: ++ids,
    name: `r${ids}`,
    kind: 'task_dead',
    params: {},
    url: 'https://hooks.example/x',
    secret: 'k',
    format: 'json',
    dedupMs: 600_000,
    enabled: true,
    cursorAt: null,
    cursorId: null,
    createdBy: 't',
    createdAt: ago(3600_000),
    updatedBy: 't',
    updatedAt: ago(3600_000),
    ...over,
  };
}

function facts(over: Partial<AlertFacts> = {}): AlertFacts {
  return { now: NOW, dead: new Map(), attempts: new Map(), pending: [], workers: [], schedules: [], ...over };
}

const dead = (id: number, queue: string, command = 'demo.fail', message: string | null = 'boom'): DeadTaskFact => ({
  id,
  token: `t-${id}`,
  queue,
  command,
  finishedAt: ago(10_000 - id),
  errorMessage: message,
});

const pending = (queue: string, ready: number, oldestMs: number | null) => ({
  queue,
  ready,
  scheduled: 0,
  retrying: 0,
  oldestReadyAt: oldestMs === null ? null : ago(oldestMs),
  nextRunAt: null,
});

describe('planAlerts', () => {
  it('task_dead: one firing per queue and command, the cursor moved to the last dead task read', () => {
    const r = rule({ kind: 'task_dead' });
    const p = planAlerts([r], facts({ dead: new Map([[r.id, [dead(1, 'orders'), dead(2, 'orders'), dead(3, 'billing', 'x')]]]) }));
    expect(p.firings.map((f) => f.key)).toEqual(['dead:orders:demo.fail', 'dead:billing:x']);
    expect(p.firings[0]!.message).toBe('task t-1 (orders / demo.fail) went dead: boom (and 1 more)');
    expect(p.firings[0]!.details).toMatchObject({ tokens: ['t-1', 't-2'], count: 2 });
    expect(p.firings.every((f) => f.needsCursor)).toBe(true);
    expect(p.cursors).toEqual([{ ruleId: r.id, fromAt: null, fromId: null, toAt: ago(10_000 - 3), toId: 3 }]);
  });

  it('task_dead: nothing new, nothing written; the internal alert queue is left out unless named', () => {
    const r = rule({ kind: 'task_dead' });
    expect(planAlerts([r], facts())).toEqual({ firings: [], cursors: [] });
    const p = planAlerts([r], facts({ dead: new Map([[r.id, [dead(1, ALERT_QUEUE, ALERT_HANDLER)]]]) }));
    expect(p.firings).toEqual([]);
    expect(p.cursors).toHaveLength(1); // read past it all the same
    const named = rule({ kind: 'task_dead', params: { queue: ALERT_QUEUE } });
    expect(planAlerts([named], facts({ dead: new Map([[named.id, [dead(1, ALERT_QUEUE)]]]) })).firings).toHaveLength(1);
  });

  it('ready_age: fires for each watched queue whose oldest ready task waited longer than the threshold', () => {
    const r = rule({ kind: 'ready_age', params: { thresholdMs: 60_000 } });
    const p = planAlerts(
      [r],
      facts({ pending: [pending('a', 3, 120_000), pending('b', 1, 30_000), pending('c', 0, null), pending(ALERT_QUEUE, 1, 999_999)] }),
    );
    expect(p.firings.map((f) => f.key)).toEqual(['ready_age:a']);
    expect(p.firings[0]!.message).toBe('queue a: the oldest ready task has waited 2 min (threshold 60 s)');
    expect(p.cursors).toEqual([]);
    const only = rule({ kind: 'ready_age', params: { queue: 'b', thresholdMs: 1000 } });
    expect(planAlerts([only], facts({ pending: [pending('a', 3, 120_000), pending('b', 1, 30_000)] })).firings.map((f) => f.key)).toEqual([
      'ready_age:b',
    ]);
  });

  it('no_worker: ready tasks and no live worker serving the queue', () => {
    const r = rule({ kind: 'no_worker' });
    const q = [pending('a', 2, 1000), pending('b', 0, null), pending('c', 1, 1000)];
    expect(planAlerts([r], facts({ pending: q, workers: [] })).firings.map((f) => f.key)).toEqual(['no_worker:a', 'no_worker:c']);
    expect(planAlerts([r], facts({ pending: q, workers: [{ live: false, queues: null }] })).firings).toHaveLength(2);
    expect(planAlerts([r], facts({ pending: q, workers: [{ live: true, queues: null }] })).firings).toEqual([]);
    const some = planAlerts([r], facts({ pending: q, workers: [{ live: true, queues: ['c'] }] }));
    expect(some.firings.map((f) => f.message)).toEqual(['queue a has 2 ready tasks and no live worker serves it']);
  });

  it('schedule_missed: an enabled schedule whose next tick is later than the grace', () => {
    const r = rule({ kind: 'schedule_missed', params: { thresholdMs: 30_000 } });
    const schedules = [
      { name: 'late', enabled: true, nextFireAt: ago(300_000) },
      { name: 'fine', enabled: true, nextFireAt: ago(10_000) },
      { name: 'off', enabled: false, nextFireAt: ago(300_000) },
      { name: 'none', enabled: true, nextFireAt: null },
    ];
    const p = planAlerts([r], facts({ schedules }));
    expect(p.firings.map((f) => f.key)).toEqual(['schedule:late']);
    expect(p.firings[0]!.message).toContain('5 min late');
    const named = rule({ kind: 'schedule_missed', params: { schedule: 'fine' } });
    expect(planAlerts([named], facts({ schedules })).firings).toEqual([]); // default grace 60 s
  });

  it('failure_streak: the newest N attempts all failed, and one is new since the last look', () => {
    const attempt = (id: number, outcome: AttemptFact['outcome']): AttemptFact => ({
      id,
      token: `t${id}`,
      outcome,
      errorMessage: `e${id}`,
    });
    const r = rule({ kind: 'failure_streak', params: { command: 'sync', count: 3 } });
    const three = [attempt(9, 'failed'), attempt(8, 'timed_out'), attempt(7, 'abandoned')];
    const p = planAlerts([r], facts({ attempts: new Map([[r.id, three]]) }));
    expect(p.firings.map((f) => [f.key, f.message])).toEqual([['streak:sync', 'sync failed 3 times in a row (last: e9)']]);
    expect(p.cursors).toEqual([{ ruleId: r.id, fromAt: null, fromId: null, toAt: null, toId: 9 }]);
    // a success among them: no firing, the cursor still moves
    const broken = planAlerts(
      [r],
      facts({ attempts: new Map([[r.id, [attempt(9, 'failed'), attempt(8, 'succeeded'), attempt(7, 'failed')]]]) }),
    );
    expect(broken.firings).toEqual([]);
    expect(broken.cursors).toHaveLength(1);
    // fewer than N attempts: no firing
    expect(planAlerts([r], facts({ attempts: new Map([[r.id, three.slice(0, 2)]]) })).firings).toEqual([]);
    // nothing new since the cursor: nothing at all
    const seen = { ...r, cursorId: 9 };
    expect(planAlerts([seen], facts({ attempts: new Map([[r.id, three]]) }))).toEqual({ firings: [], cursors: [] });
  });

  it('a disabled rule never fires', () => {
    const r = rule({ kind: 'no_worker', enabled: false });
    expect(planAlerts([r], facts({ pending: [pending('a', 1, 1000)] })).firings).toEqual([]);
  });
});

describe('delivery', () => {
  it('signs the raw body with HMAC-SHA256 of the secret; the secret stays out of the payload', () => {
    const r = rule({ kind: 'no_worker', secret: 'hush-hush' });
    const w = firingWrite({ rule: r, key: 'no_worker:a', message: 'm', details: { queue: 'a' }, needsCursor: false }, NOW);
    const p = w.delivery.payload as { body: string; signature: string; ruleId: number };
    // neither the secret nor the webhook URL (a credential too) is kept in the task: the URL is read when it runs
    expect(p).not.toHaveProperty('url');
    expect(JSON.stringify(w)).not.toContain(r.url);
    expect(p.ruleId).toBe(r.id);
    expect(p.signature).toBe('sha256=' + createHmac('sha256', 'hush-hush').update(p.body).digest('hex'));
    expect(p.signature).toBe(signBody('hush-hush', p.body));
    expect(JSON.stringify(w)).not.toContain('hush-hush');
    expect(w.delivery).toMatchObject({ queue: ALERT_QUEUE, command: ALERT_HANDLER, kind: 'handler', maxAttempts: 5 });
    expect(JSON.parse(p.body)).toEqual({
      source: 'readpast',
      rule: r.name,
      ruleId: r.id,
      kind: 'no_worker',
      key: 'no_worker:a',
      message: 'm',
      firedAt: NOW.toISOString(),
      test: false,
      details: { queue: 'a' },
    });
    expect(w.dedupMs).toBe(600_000);
  });

  it('without a secret there is no signature; slack format is {text}; a test send is never deduplicated', () => {
    const r = rule({ kind: 'ready_age', secret: null, format: 'slack', name: 'slow' });
    const t = testFiring(r, NOW);
    const p = t.delivery.payload as { body: string; signature: string | null };
    expect(p.signature).toBeNull();
    expect(JSON.parse(p.body)).toEqual({
      text: '[test] readpast alert · slow: test of alert rule slow (oldest ready task older than a threshold)',
    });
    expect(t).toMatchObject({ test: true, dedupMs: 0, dedupKey: 'test' });
    expect(alertBody({ rule: r, key: 'k', message: 'hello', details: {}, needsCursor: false }, NOW, false)).toBe(
      JSON.stringify({ text: 'readpast alert · slow: hello' }),
    );
  });

  it('ages read as people say them', () => {
    expect(age(42_000)).toBe('42 s');
    expect(age(5 * 60_000)).toBe('5 min');
    expect(age(3 * 3600_000 + 5 * 60_000)).toBe('3 h 5 min');
  });
});
