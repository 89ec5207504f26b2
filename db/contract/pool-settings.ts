// Pool sizes per host and role: absent until set, replaced in place, one row per (host, role).
import { describe, expect, it } from 'vitest';
import { useStore, type StoreFactory } from './harness';

export function poolSettingsTests(factory: StoreFactory): void {
  describe('pool settings', () => {
    const h = useStore(factory);

    it('stores a size per host and role, returns the one it replaced, and reads it back', async () => {
      const { store } = h();
      expect(await store.reads.getPoolSetting('host-a', 'web')).toBeNull();
      const t0 = Date.now();
      expect(await store.commands.setPoolSetting({ host: 'host-a', role: 'web', size: 2, updatedBy: 'alice' })).toBeNull();
      const first = await store.reads.getPoolSetting('host-a', 'web');
      expect(first).toMatchObject({ host: 'host-a', role: 'web', size: 2, updatedBy: 'alice' });
      expect(Math.abs(first!.updatedAt.getTime() - t0)).toBeLessThan(60_000);

      const replaced = await store.commands.setPoolSetting({ host: 'host-a', role: 'web', size: 0, updatedBy: 'bob' });
      expect(replaced).toMatchObject({ size: 2, updatedBy: 'alice' });
      expect(await store.reads.getPoolSetting('host-a', 'web')).toMatchObject({ size: 0, updatedBy: 'bob' });

      // another role on the same host, and the same role on another host, are separate
      await store.commands.setPoolSetting({ host: 'host-a', role: 'worker', size: 7, updatedBy: 'carol' });
      await store.commands.setPoolSetting({ host: 'host-b', role: 'web', size: 5, updatedBy: 'carol' });
      expect((await store.reads.getPoolSetting('host-a', 'web'))?.size).toBe(0);
      expect((await store.reads.getPoolSetting('host-a', 'worker'))?.size).toBe(7);
      expect((await store.reads.getPoolSetting('host-b', 'web'))?.size).toBe(5);
      expect(await store.reads.getPoolSetting('host-b', 'worker')).toBeNull();
    });
  });
}
