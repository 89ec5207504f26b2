// Part of `npm run bench` (alone: BENCH_ONLY=enqueue npm run bench): where the time of an enqueue goes on the
// embedded store — each part of one awaited `rp.enqueue` of a plain handler task and of one `enqueueMany` of
// 1,000, in µs, next to the whole call through the library (db/sqlite/bench/enqueue-parts.ts says how each part
// is timed). Figures of one machine at one moment: read the parts against each other and against the whole.
import { join } from 'node:path';
import { openReadpast, openStore } from '../lib/api/open';
import { Readpast } from '../lib/api/readpast';
import type { Store } from '../lib/engine/ports';
import { bulkParts, singleParts, type Part, type SingleFigures } from '../db/sqlite/bench/enqueue-parts';

const SINGLE = Number(process.env.BENCH_SINGLE ?? 2_000);
const BULK_CALLS = 20;
const BULK_SIZE = 1_000;

export interface EnqueueBench {
  single: SingleFigures;
  bulk: { size: number; wholeUs: number; parts: Part[] };
}

const us = (x: number) => `${(Math.round(x * 10) / 10).toFixed(1).padStart(9)} µs`;

function print(log: (...a: unknown[]) => void, title: string, wholeUs: number, parts: Part[]): void {
  log(`${title}: ${wholeUs} µs (CPU)`);
  for (const p of parts) log(`  ${us(p.us)}  ${p.part}`);
  log(`  ${us(wholeUs - parts.reduce((s, p) => s + p.us, 0))}  the rest of the call (front door, promises, results)`);
}

function printSingle(log: (...a: unknown[]) => void, f: SingleFigures): void {
  log(`one awaited rp.enqueue: ${f.wholeUs} µs (CPU)`);
  log('  its parts, each timed alone (on a file of their own):');
  for (const p of f.parts) log(`  ${us(p.us)}  ${p.part}`);
  log('  in alternating rounds on one file:');
  log(`  ${us(f.storeUs)}  the store's call (commands.enqueue of a validated task), of which:`);
  log(`  ${us(f.bareUs)}    its statements bare (queue row, append; no JS around them)`);
  log(`  ${us(f.storeUs - f.bareUs)}    the store's JS around them (the write's wait and retry, row, wake, promises)`);
  log(`  ${us(f.frontUs)}  the front door alone (validation, context, audit decision, span, promises; over a store answering at once)`);
  log(`  ${us(f.wholeUs - f.storeUs - f.frontUs)}  the two together beyond their sum (caches and collections shared by both)`);
  log('  moved into Tasks later, by the next write or read (a claim, mostly), per task:');
  for (const p of f.moved) log(`  ${us(p.us)}  ${p.part}`);
  log('the same task written to Tasks directly (a dedup key, parents, a batch, an audited enqueue), cumulatively in one transaction:');
  for (const p of f.direct) log(`  ${us(p.us)}  ${p.part}`);
}

/** The store as the front door sees it, but an enqueue that answers at once: what the front door costs alone. */
function answering(store: Store): Store {
  let n = 0;
  const enqueue = async () => ({ token: `t${n++}`, created: true });
  return { ...store, commands: { ...store.commands, enqueue } } as Store;
}

export async function benchEnqueue(dir: string, log: (...a: unknown[]) => void): Promise<EnqueueBench> {
  let n = 0;
  const file = (name: string) => join(dir, `${name}-${++n}.db`);
  const singleFile = file('enqueue');
  const store = await openStore(`sqlite:${singleFile}`);
  const rp = new Readpast(store);
  const front = new Readpast(answering(store));
  let single: SingleFigures;
  try {
    for (const r of [rp, front]) r.registry.register('bench.noop', () => null);
    single = await singleParts(file, SINGLE, {
      file: singleFile,
      whole: (raw) => rp.enqueue(raw as { command: string }),
      store: (input) => store.commands.enqueue(input),
      front: (raw) => front.enqueue(raw as { command: string }),
    });
    printSingle(log, single);
  } finally {
    await store.close();
  }
  const bulkRp = await openReadpast({ url: `sqlite:${file('enqueue-many')}` });
  try {
    bulkRp.registry.register('bench.noop', () => null);
    const bulk = await bulkParts(file, BULK_CALLS, BULK_SIZE, (raws) => bulkRp.enqueueMany(raws));
    print(log, `one enqueueMany of ${BULK_SIZE}`, bulk.wholeUs, bulk.parts);
    return { single, bulk: { size: BULK_SIZE, ...bulk } };
  } finally {
    await bulkRp.close();
  }
}
