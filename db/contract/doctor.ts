// `Store.diagnose()` (readpast doctor): on a fresh, migrated store every check is well formed and
// nothing the configuration needs fails; and it changes nothing — a due task stays pending with no
// attempt logged, though on SQL Server a worker's claim ran (and was rolled back) to find it.
import { describe, expect, it } from 'vitest';
import { useStore, type StoreFactory } from './harness';

export function doctorTests(factory: StoreFactory) {
  describe('doctor (diagnose)', () => {
    const h = useStore(factory);

    it('a migrated store: well-formed checks, nothing needed failing, the schema current', async () => {
      const checks = await h().store.diagnose();
      expect(checks.length).toBeGreaterThan(3);
      expect(new Set(checks.map((c) => c.id)).size).toBe(checks.length);
      for (const c of checks) {
        expect(typeof c.id === 'string' && typeof c.title === 'string' && typeof c.detail === 'string', c.id).toBe(true);
        expect([true, false, null], c.id).toContain(c.ok);
        expect(typeof c.needed, c.id).toBe('boolean');
        expect(c.remedy === null || typeof c.remedy === 'string', c.id).toBe(true);
      }
      expect(checks.filter((c) => c.needed && c.ok === false).map((c) => `${c.id}: ${c.detail}`)).toEqual([]);
      expect(checks.find((c) => c.id === 'schema')?.ok).toBe(true);
    });

    it('changes nothing: a due task is still pending, unclaimed, with no attempt logged', async () => {
      const { store } = h();
      const { token } = await store.commands.enqueue({ kind: 'handler', command: 'demo.echo', payload: 1 });
      const before = await h().counts();
      await store.diagnose();
      const t = await h().task(token);
      expect(t.status).toBe('pending');
      expect(t.attempts).toBe(0);
      expect(t.history).toEqual([]);
      expect(await h().counts()).toEqual(before);
      expect(await store.reads.listRunning()).toEqual([]);
      // and it can still be claimed as usual
      expect((await h().claimOne(await h().worker())).token).toBe(token);
    });
  });
}
