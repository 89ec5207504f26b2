// Part of `npm run bench` (alone: BENCH_ONLY=keys npm run bench): the cost of concurrency keys. The same
// trivial tasks drain with no key and spread over 1,000 keys with per-key limit 1, each by a pool of 16 on its
// own SQLite file, in two layouts:
//  - interleaved (task i has key i mod 1,000, as tasks of many customers arrive): the judged ratio;
//  - key by key (the 20 tasks of a key enqueued together, so the oldest pending tasks always share a key: a
//    claim that let a full key crowd out the others would show). Fair turns then take one task from each of
//    hundreds of keys per claim, i.e. rows spread over the whole table — each claim and each settle writes
//    about one table page per task instead of a few pages per claim, a cost of storage locality (the WAL
//    written per commit), not of the key checks. Printed with its ratio, not judged.
// Target: the keyed drain runs at ≥ 0.5 × the unkeyed one — a ratio of runs on the same machine, so it does
// not depend on the machine.
import { join } from 'node:path';
import { openReadpast } from '../lib/api/open';
import { drainRate } from './bench-drain';

export const KEYS_TARGET = 0.5;

export interface KeysBench {
  tasks: number;
  keys: number;
  pool: number;
  noKeyPerSec: number;
  keyedPerSec: number;
  /** keyedPerSec / noKeyPerSec (interleaved keys: the judged ratio) */
  keysRatio: number;
  /** the key-by-key layout's rate and ratio (printed, not judged) */
  keyByKeyPerSec: number;
  keyByKeyRatio: number;
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
    return await drainRate(rp, queue, n, pool);
  } finally {
    await rp.close();
  }
}

export async function benchKeys(dir: string, log: (...a: unknown[]) => void): Promise<KeysBench> {
  const tasks = Number(process.env.BENCH_KEYS_TASKS ?? 20_000);
  const keys = 1000;
  const pool = 16;
  const perKey = Math.ceil(tasks / keys);
  const name = (k: number) => `customer-${String(k).padStart(4, '0')}`;
  const interleaved = (i: number) => name(i % keys);
  const keyOf = (i: number) => name(Math.floor(i / perKey));
  log(`keys: ${tasks} tasks, ${keys} keys (${perKey} each), per-key limit 1, pool of ${pool}`);
  // throwaway warm-ups, so neither measured path pays for its first compilations; then each drain three times,
  // in turns, and the better of each (a busy moment of the machine then costs neither side the ratio)
  await drain(join(dir, 'keys-warm-none.db'), 1000, pool, null);
  await drain(join(dir, 'keys-warm.db'), 1000, pool, keyOf);
  let noKeyPerSec = 0;
  let keyedPerSec = 0;
  let keyByKeyPerSec = 0;
  for (const round of [1, 2, 3]) {
    noKeyPerSec = Math.max(noKeyPerSec, await drain(join(dir, `keys-none-${round}.db`), tasks, pool, null));
    keyedPerSec = Math.max(keyedPerSec, await drain(join(dir, `keys-1000-${round}.db`), tasks, pool, interleaved));
    keyByKeyPerSec = Math.max(keyByKeyPerSec, await drain(join(dir, `keys-bykey-${round}.db`), tasks, pool, keyOf));
  }
  const ratio = (x: number) => Math.round((x / noKeyPerSec) * 1000) / 1000;
  const keysRatio = ratio(keyedPerSec);
  const keyByKeyRatio = ratio(keyByKeyPerSec);
  const verdict = keysRatio >= KEYS_TARGET ? 'meets' : 'MISSES';
  log(`keys: no key ${Math.round(noKeyPerSec)}/s (best of 3)`);
  log(`keys: ${keys} keys interleaved, per-key limit 1 ${Math.round(keyedPerSec)}/s (best of 3)`);
  log(`keys: ratio ${keysRatio} (${verdict} the target ≥ ${KEYS_TARGET})`);
  const byKey = `keys: ${keys} keys enqueued key by key ${Math.round(keyByKeyPerSec)}/s, ratio ${keyByKeyRatio}`;
  log(`${byKey} (not judged: rows spread over the table)`);
  return {
    tasks,
    keys,
    pool,
    noKeyPerSec: Math.round(noKeyPerSec),
    keyedPerSec: Math.round(keyedPerSec),
    keysRatio,
    keyByKeyPerSec: Math.round(keyByKeyPerSec),
    keyByKeyRatio,
    keysTarget: KEYS_TARGET,
  };
}
