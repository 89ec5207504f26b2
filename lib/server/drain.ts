// A bounded run of a short-lived pool: claims and runs due tasks until none is left or time is up.
// A stop of the server (SIGTERM) stops it too before the store closes (engine.ts trackDrainPool).
import { ConflictError } from '@/lib/engine/errors';
import { trackDrainPool, type ServerEngine } from './engine';

const KEY = Symbol.for('readpast.server.draining');
type Holder = { [KEY]?: boolean };

export const DRAIN_ROLE = 'drain';

export async function drain({ readpast, config }: ServerEngine, maxMs: number): Promise<{ processed: number }> {
  const g = globalThis as Holder;
  if (g[KEY]) throw new ConflictError('a drain is already running in this process');
  g[KEY] = true;
  try {
    const pool = readpast.createPool({ concurrency: config.workers > 0 ? config.workers : 4, role: DRAIN_ROLE });
    trackDrainPool(pool);
    const { processed } = await pool.runUntilIdle(maxMs);
    return { processed };
  } finally {
    trackDrainPool(null);
    g[KEY] = false;
  }
}
