// Part of `npm run bench` (alone: BENCH_ONLY=keys npm run bench): the cost of concurrency keys. The same
// trivial tasks drain once with no key and once spread over 1,000 keys with per-key limit 1 (enqueued key by
// key, so the oldest pending tasks always share a key: a claim that let a full key crowd out the others
// would show), each by a pool of 16 on its own SQLite file. Target: the keyed drain runs at ≥ 0.5 × the
// unkeyed one — a ratio of two runs on the same machine, so it does not depend on the machine.
import { join } from 'node:path';
import { openReadpast } from '../lib/api/open';

export const KEYS_TARGET = 0.5;

export interface KeysBench {
  tasks: number;
  keys: number;
  pool: number;
  noKeyPerSec: number;
  keyedPerSec: number;
  /** keyedPerSec / noKeyPerSec */
  keysRatio: number;
  keysTarget: number;
}

/** Drains `n` bench.noop tasks (key of task i: keyOf(i), or none) with a pool of `pool`; tasks per second. */
async function drain(file: string, n: number, pool: number, keyOf: ((i: number) => string) | null): Promise<number> {
  const rp = await openReadpast({ url: `sqlite:${file}` });
  try {
    rp.registry.register('bench.noop', () => null);
    const queue = keyOf ? 'keyed' : 'plain';
    if (keyOf) await rp.setQueue(queue, { perKeyLimit: 1 }, 'bench');
    const chunk = 10_000;
    for (let done = 0; done < n; done += chunk) {
      const items = Array.from({ length: Math.min(chunk, n - done) }, (_, j) => ({
        command: 'bench.noop',
        queue,
        ...(keyOf ? { concurrencyKey: keyOf(done + j) } : {}),
      }));
      await rp.enqueueMany(items);
    }
    const p = rp.createPool({ concurrency: pool, role: 'bench', maintenance: false });
    const t0 = performance.now();
    await p.start();
    for (;;) {
      const q = (await rp.reads.countsByQueue()).find((c) => c.queue === queue);
      if (q && q.succeeded >= n) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    const perSec = n / ((performance.now() - t0) / 1000);
    await p.stop();
    return perSec;
  } finally {
    await rp.close();
  }
}

export async function benchKeys(dir: string, log: (...a: unknown[]) => void): Promise<KeysBench> {
  const tasks = Number(process.env.BENCH_KEYS_TASKS ?? 20_000);
  const keys = 1000;
  const pool = 16;
  const perKey = Math.ceil(tasks / keys);
  const keyOf = (i: number) => `customer-${String(Math.floor(i / perKey)).padStart(4, '0')}`;
  log(`keys: ${tasks} tasks, ${keys} keys (${perKey} each, enqueued key by key), per-key limit 1, pool of ${pool}`);
  // throwaway warm-ups, so neither measured path pays for its first compilations; then each drain three times,
  // in turns, and the better of each (a busy moment of the machine then costs neither side the ratio)
  await drain(join(dir, 'keys-warm-none.db'), 1000, pool, null);
  await drain(join(dir, 'keys-warm.db'), 1000, pool, keyOf);
  let noKeyPerSec = 0;
  let keyedPerSec = 0;
  for (const round of [1, 2, 3]) {
    noKeyPerSec = Math.max(noKeyPerSec, await drain(join(dir, `keys-none-${round}.db`), tasks, pool, null));
    keyedPerSec = Math.max(keyedPerSec, await drain(join(dir, `keys-1000-${round}.db`), tasks, pool, keyOf));
  }
  log(`keys: no key ${Math.round(noKeyPerSec)}/s (best of 3)`);
  const keysRatio = Math.round((keyedPerSec / noKeyPerSec) * 1000) / 1000;
  const verdict = keysRatio >= KEYS_TARGET ? 'meets' : 'MISSES';
  log(`keys: ${keys} keys, per-key limit 1 ${Math.round(keyedPerSec)}/s (best of 3)`);
  log(`keys: ratio ${keysRatio} (${verdict} the target ≥ ${KEYS_TARGET})`);
  return {
    tasks,
    keys,
    pool,
    noKeyPerSec: Math.round(noKeyPerSec),
    keyedPerSec: Math.round(keyedPerSec),
    keysRatio,
    keysTarget: KEYS_TARGET,
  };
}
