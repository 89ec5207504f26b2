// Contract tests: alert rules (CRUD), firings with their delivery tasks, the dedup window across
// concurrent evaluations, the per-rule cursor over dead tasks, and the facts the rules read.
import { describe, expect, it } from 'vitest';
import { ALERT_HANDLER, ALERT_QUEUE, type AlertRuleInput, type AlertWrite } from '../../lib/engine/alert-types';
import { firingWrite, testFiring } from '../../lib/engine/alerts';
import type { Store } from '../../lib/engine/ports';
import { useStore, type StoreFactory } from './harness';

const rule = (over: Partial<AlertRuleInput> = {}): AlertRuleInput => ({
  name: 'orders-dead',
  kind: 'task_dead',
  params: { queue: 'orders' },
  url: 'http://127.0.0.1:9/hook',
  secret: 's3cret-key',
  format: 'json',
  dedupMs: 600_000,
  enabled: true,
  ...over,
});

async function created(store: Store, over: Partial<AlertRuleInput> = {}) {
  const r = await store.commands.createAlertRule(rule(over), 'contract');
  if (r === 'exists') throw new Error('exists');
  return r;
}

export function alertsTests(factory: StoreFactory): void {
  describe('alerts', () => {
    const h = useStore(factory);

    it('creates, lists, updates and deletes rules; a name is unique', async () => {
      const { store } = h();
      const a = await created(store);
      expect(a).toMatchObject({ name: 'orders-dead', kind: 'task_dead', params: { queue: 'orders' }, secret: 's3cret-key' });
      expect(a.enabled).toBe(true);
      expect(a.cursorAt).toBeNull();
      expect(await store.commands.createAlertRule(rule(), 'contract')).toBe('exists');
      const b = await created(store, { name: 'slow', kind: 'ready_age', params: { thresholdMs: 60_000 }, secret: null, format: 'slack' });
      expect((await store.reads.listAlertRules()).map((r) => r.name)).toEqual(['orders-dead', 'slow']);

      const u = await store.commands.updateAlertRule(b.id, { ...rule({ name: 'slower', kind: 'ready_age' }), enabled: false }, 'x');
      expect(u).toMatchObject({ id: b.id, name: 'slower', enabled: false, updatedBy: 'x' });
      expect(await store.commands.updateAlertRule(b.id, rule({ name: 'orders-dead' }), 'x')).toBe('exists');
      expect(await store.commands.updateAlertRule(999_999, rule({ name: 'zzz' }), 'x')).toBe('not_found');
      expect((await store.reads.getAlertRule(b.id))?.name).toBe('slower');

      expect(await store.commands.deleteAlertRule(a.id)).toBe('deleted');
      expect(await store.commands.deleteAlertRule(a.id)).toBe('not_found');
      expect(await store.reads.getAlertRule(a.id)).toBeNull();
    });

    it('records a firing with its delivery task, and lists it with the task status', async () => {
      const { store } = h();
      const r = await created(store);
      const [fired] = await store.commands.writeAlerts({ firings: [testFiring(r)], cursors: [] });
      expect(fired).toMatchObject({ ruleId: r.id, ruleName: r.name, dedupKey: 'test' });
      const task = await h().task(fired!.token);
      expect(task).toMatchObject({ queue: ALERT_QUEUE, command: ALERT_HANDLER, status: 'pending', maxAttempts: 5 });
      const payload = task.payload as Record<string, unknown>;
      // the rule's id, never its webhook URL (a credential): the delivery reads it when it runs
      expect(payload.ruleId).toBe(r.id);
      expect(JSON.stringify(payload)).not.toContain(r.url);
      expect(String(payload.signature)).toMatch(/^sha256=[0-9a-f]{64}$/);
      expect(JSON.stringify(payload)).not.toContain('s3cret-key');

      const page = await store.reads.listAlertFirings({ limit: 10 });
      expect(page.items).toHaveLength(1);
      expect(page.items[0]).toMatchObject({ ruleId: r.id, ruleName: r.name, taskToken: fired!.token, status: 'pending', test: true });
      // the firing outlives its rule
      await store.commands.deleteAlertRule(r.id);
      expect((await store.reads.listAlertFirings({ limit: 10 })).items).toHaveLength(1);
    });

    it('fires once per (rule, key) within the window, however many evaluations write it at once', async () => {
      const { store } = h();
      const r = await created(store, { kind: 'ready_age', params: { thresholdMs: 1000 } });
      const w = (): AlertWrite => ({
        firings: [firingWrite({ rule: r, key: 'ready_age:orders', message: 'old', details: {}, needsCursor: false }, new Date())],
        cursors: [],
      });
      const results = await Promise.all([
        store.commands.writeAlerts(w()),
        store.commands.writeAlerts(w()),
        store.commands.writeAlerts(w()),
      ]);
      expect(results.flat()).toHaveLength(1);
      expect(await store.commands.writeAlerts(w())).toEqual([]);
      // another key is not suppressed; a test send never is
      const other = firingWrite({ rule: r, key: 'ready_age:billing', message: 'old', details: {}, needsCursor: false }, new Date());
      expect(await store.commands.writeAlerts({ firings: [other], cursors: [] })).toHaveLength(1);
      expect(await store.commands.writeAlerts({ firings: [testFiring(r)], cursors: [] })).toHaveLength(1);
      expect(await store.commands.writeAlerts({ firings: [testFiring(r)], cursors: [] })).toHaveLength(1);
      const page = await store.reads.listAlertFirings({ ruleId: r.id, limit: 2 });
      expect(page.items).toHaveLength(2);
      expect(page.nextCursor).not.toBeNull();
      const rest = await store.reads.listAlertFirings({ ruleId: r.id, limit: 10, cursor: page.nextCursor! });
      expect(rest.items).toHaveLength(2);
      expect(rest.items[0]!.id).toBeLessThan(page.items[1]!.id);
    });

    it('a window of 0 never suppresses; an expired window fires again', async () => {
      const { store } = h();
      const r = await created(store, { kind: 'no_worker', params: {}, dedupMs: 0 });
      const w = () => ({
        firings: [
          firingWrite({ rule: { ...r, dedupMs: 0 }, key: 'no_worker:q', message: 'm', details: {}, needsCursor: false }, new Date()),
        ],
        cursors: [],
      });
      expect(await store.commands.writeAlerts(w())).toHaveLength(1);
      expect(await store.commands.writeAlerts(w())).toHaveLength(1);
    });

    it('moves a cursor only from where it was read; firings that need it are dropped otherwise', async () => {
      const { store } = h();
      const r = await created(store);
      const at = new Date(Date.now() - 5000);
      const f = firingWrite({ rule: r, key: 'dead:orders:x', message: 'dead', details: {}, needsCursor: true }, new Date());
      const move = { ruleId: r.id, fromAt: null, fromId: null, toAt: at, toId: 7 };
      const [first, second] = await Promise.all([
        store.commands.writeAlerts({ firings: [f], cursors: [move] }),
        store.commands.writeAlerts({ firings: [{ ...f, dedupKey: 'dead:orders:y' }], cursors: [move] }),
      ]);
      expect(first!.length + second!.length).toBe(1);
      const after = await store.reads.getAlertRule(r.id);
      expect(after?.cursorAt?.getTime()).toBe(at.getTime());
      expect(after?.cursorId).toBe(7);
      // an update keeps the cursor
      const u = await store.commands.updateAlertRule(r.id, rule({ params: { queue: 'billing' } }), 'x');
      expect(u).toMatchObject({ cursorId: 7 });
    });

    it('reads dead tasks after a cursor, oldest first, filtered by queue and command', async () => {
      const { store } = h();
      const slot = await h().worker();
      const before = new Date((await h().storeNow(slot)) - 1000);
      const a = await h().deadTask(slot, 'boom a', { queue: 'orders', command: 'demo.fail' });
      const b = await h().deadTask(slot, 'boom b', { queue: 'orders', command: 'demo.echo' });
      await h().deadTask(slot, 'boom c', { queue: 'billing', command: 'demo.fail' });
      const q = { afterAt: before, afterId: 0, queue: 'orders', command: null, lagMs: 0, limit: 10 };
      const dead = await store.reads.deadTasksSince(q);
      expect(dead.map((d) => d.token)).toEqual([a, b]);
      expect(dead[0]).toMatchObject({ queue: 'orders', command: 'demo.fail', errorMessage: 'boom a' });
      expect((await store.reads.deadTasksSince({ ...q, command: 'demo.echo' })).map((d) => d.token)).toEqual([b]);
      expect(await store.reads.deadTasksSince({ ...q, queue: null })).toHaveLength(3);
      const last = dead[0]!;
      expect((await store.reads.deadTasksSince({ ...q, afterAt: last.finishedAt, afterId: last.id })).map((d) => d.token)).toEqual([b]);
      expect(await store.reads.deadTasksSince({ ...q, lagMs: 3_600_000 })).toEqual([]);
    });

    it("reads a command's newest ended attempts, newest first", async () => {
      const { store } = h();
      const slot = await h().worker();
      await h().doneTask(slot, { command: 'demo.flaky' });
      const d1 = await h().deadTask(slot, 'f1', { command: 'demo.flaky' });
      const d2 = await h().deadTask(slot, 'f2', { command: 'demo.flaky' });
      await h().deadTask(slot, 'other', { command: 'demo.fail' });
      const got = await store.reads.recentAttempts('demo.flaky', 2);
      expect(got.map((a) => a.token)).toEqual([d2, d1]);
      expect(got.map((a) => a.outcome)).toEqual(['failed', 'failed']);
      expect(got[0]!.errorMessage).toBe('f2');
      expect((await store.reads.recentAttempts('demo.flaky', 10)).map((a) => a.outcome)).toEqual(['failed', 'failed', 'succeeded']);
    });

    it('evaluates the state rules end to end: old ready tasks, no worker, a missed tick; once per window', async () => {
      const { store } = h();
      await created(store, { name: 'slow', kind: 'ready_age', params: { queue: 'orders', thresholdMs: 60_000 } });
      await created(store, { name: 'nobody', kind: 'no_worker', params: {} });
      await created(store, { name: 'late', kind: 'schedule_missed', params: {} });
      await h().add({ queue: 'orders' });
      const tick = new Date(Date.UTC(2030, 0, 1));
      await store.commands.createSchedule(
        {
          name: 'nightly',
          cron: '0 0 * * *',
          timezone: 'UTC',
          kind: 'handler',
          command: 'demo.echo',
          payload: null,
          queue: 'sched',
          priority: 0,
          maxAttempts: null,
          timeoutMs: null,
          misfire: 'skip',
          overlap: 'allow',
          enabled: true,
          source: 'dashboard',
          declared: true,
        },
        tick,
        'contract',
      );
      // judged as of two hours after the tick: the ready task has waited (the store's clock is now), the tick is missed
      const later = new Date(tick.getTime() + 2 * 3600_000);
      const fired = await store.maintenance.evaluateAlerts(later);
      expect(fired.map((f) => `${f.ruleName} ${f.dedupKey}`).sort()).toEqual([
        'late schedule:nightly',
        'nobody no_worker:orders',
        'slow ready_age:orders',
      ]);
      expect(await store.maintenance.evaluateAlerts(later)).toEqual([]);
      const page = await store.reads.listAlertFirings({ limit: 10 });
      expect(page.items.map((f) => f.status)).toEqual(['pending', 'pending', 'pending']);
    });

    it('evaluates rules end to end: a dead task fires once, the cursor moves past it', async () => {
      const { store } = h();
      const slot = await h().worker();
      const r = await created(store);
      // the rule sees what died after it was created (and settled at least DEAD_LAG_MS ago)
      const token = await h().deadTask(slot, 'kaput', { queue: 'orders' });
      const dead = await h().task(token);
      const later = new Date(dead.finishedAt!.getTime() + 60_000);
      await h().untilStoreTime(slot, dead.finishedAt!.getTime() + 2_100);
      const fired = await store.maintenance.evaluateAlerts(later);
      expect(fired).toHaveLength(1);
      expect(fired[0]).toMatchObject({ ruleId: r.id, dedupKey: 'dead:orders:demo.echo' });
      expect(await store.maintenance.evaluateAlerts(later)).toEqual([]);
      const after = await store.reads.getAlertRule(r.id);
      expect(after?.cursorId).toBe(dead.id);
      const firing = (await store.reads.listAlertFirings({ limit: 5 })).items[0]!;
      expect(firing.message).toContain(token);
      expect(firing.message).toContain('kaput');
    });
  });
}
