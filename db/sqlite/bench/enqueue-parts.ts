// Where the time of an enqueue goes on the embedded store (`BENCH_ONLY=enqueue npm run bench`): each part of
// one awaited `rp.enqueue` and of one `enqueueMany` of 1,000, timed alone on a file migrated by the store, with
// the store's connection settings. Statements are timed cumulatively inside the write transaction they run in
// (the transaction alone, then with the queue row read, then with the INSERT, then with the kept counts): each
// part's figure is what it adds, the pages it dirties written by the commit included. The whole call, the store's
// call, the same statements bare and the front door alone are timed in alternating rounds on one file (figures
// taken apart, on other files or minutes later, differ by more than the parts between them). Times are this
// process's CPU time (user + system, the commit's writes included), so that a machine busy with other work changes
// them less than a clock.
import type { Db } from '../connection';
import { migrated, rowOf } from './ceiling';
import { Enqueued, taskRow } from '../enqueue';
import { enqueueDefaults } from '../queues';
import { openDatabase } from '../connection';
import { GET_QUEUE_DEFAULTS } from '../sql/queues';
import { FIND_DEDUP } from '../sql/enqueue';
import { stmt } from '../stmt';
import { Tally } from '../tally';
import { newToken } from '../tokens';
import { insertRows } from '../insert-rows';
import { admit } from '../intake';
import { intakeValues } from '../task-values';
import { APPEND_INTAKE, CLEAR_INTAKE } from '../sql/intake';
import { validateEnqueue, type EnqueueContext } from '../../../lib/engine/validation';
import { validateEnqueueMany } from '../../../lib/engine/validation-bulk';
import { taskKey } from '../../../lib/engine/keys';
import type { EnqueueInput } from '../../../lib/engine/types';

export interface Part {
  part: string;
  us: number;
}

const ROUNDS = 7;

/** This process's CPU time (user + system), µs: a busy machine stretches the wall clock, much less this. */
const cpu = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

/** The median over ROUNDS of the mean CPU µs per call of `fn`, `n` calls a round (after one round of warm-up). */
export async function timed(n: number, fn: (i: number) => unknown): Promise<number> {
  const rounds: number[] = [];
  for (let r = 0; r <= ROUNDS; r++) {
    const t0 = cpu();
    for (let i = 0; i < n; i++) {
      const v = fn(i);
      if (v instanceof Promise) await v;
    }
    if (r > 0) rounds.push((cpu() - t0) / n);
  }
  rounds.sort((a, b) => a - b);
  return rounds[rounds.length >> 1]!;
}

const round1 = (x: number) => Math.round(x * 10) / 10;

const context: EnqueueContext = { kinds: ['handler', 'sql'], caller: null, knowsHandler: () => true };

/** Cumulative steps inside one write transaction each: the figure of a step is what it adds to the ones before. */
async function steps(db: Db, n: number, list: [string, (i: number, now: number) => void][]): Promise<Part[]> {
  const out: Part[] = [];
  let before = 0;
  for (let k = 0; k <= list.length; k++) {
    const upTo = list.slice(0, k);
    const tx = db.transaction((i: number) => {
      const now = Date.now();
      for (const [, fn] of upTo) fn(i, now);
    });
    const us = await timed(n, (i) => tx.immediate(i));
    out.push({ part: k === 0 ? 'transaction (BEGIN IMMEDIATE … COMMIT, nothing written)' : list[k - 1]![0], us: us - before });
    before = us;
  }
  return out;
}

/** The median over ROUNDS of the mean CPU µs per call of each of `fns`, their rounds alternating (after one of warm-up). */
export async function timedTogether<K extends string>(n: number, fns: Record<K, (i: number) => unknown>): Promise<Record<K, number>> {
  const rounds = new Map<K, number[]>();
  for (let r = 0; r <= ROUNDS; r++) {
    for (const [name, fn] of Object.entries(fns) as [K, (i: number) => unknown][]) {
      const t0 = cpu();
      for (let i = 0; i < n; i++) {
        const v = fn(i);
        if (v instanceof Promise) await v;
      }
      if (r > 0) rounds.set(name, [...(rounds.get(name) ?? []), (cpu() - t0) / n]);
    }
  }
  const median = (a: number[]) => a.sort((x, y) => x - y)[a.length >> 1]!;
  return Object.fromEntries([...rounds].map(([name, a]) => [name, round1(median(a))])) as Record<K, number>;
}

/** One plain task's statements as the store runs them, and nothing else: what the store's JS is measured against. */
function bareEnqueue(db: Db): (i: number) => void {
  const queue = stmt(db, GET_QUEUE_DEFAULTS);
  const append = stmt(db, APPEND_INTAKE);
  return (i) => {
    queue.get('default'); // its defaults (the row's values are the queue's: 5 attempts, no timeout)
    append.run(intakeValues(rowOf(i, Date.now())));
  };
}

/** What one awaited enqueue is timed through: the whole call, the store's call (same store), the front door alone. */
export interface SingleCalls {
  /** the store's file (the bare statements run on a second connection to it) */
  file: string;
  /** `rp.enqueue` of a raw request */
  whole: (raw: unknown) => Promise<unknown>;
  /** the same store's `commands.enqueue` of a validated input (library's own: no audit row) */
  store: (input: EnqueueInput) => Promise<unknown>;
  /** `rp.enqueue` over a store whose enqueue answers at once: validation, context, audit decision, span, promises */
  front: (raw: unknown) => Promise<unknown>;
}

export interface SingleFigures {
  /** the parts of the call: validation, token, key, the queue row, the append */
  parts: Part[];
  /** what moving an appended task into Tasks adds, per task, to the transaction that moves it (a claim's, mostly) */
  moved: Part[];
  /** the same task written to Tasks directly (a dedup key, parents, a batch, an audited enqueue): cumulative steps */
  direct: Part[];
  wholeUs: number;
  storeUs: number;
  /** the store's statements alone, no JS around them (same file, same rounds) */
  bareUs: number;
  frontUs: number;
}

/** CPU µs per task that moving `k` appended tasks adds to a transaction (median over ROUNDS, the empty one taken off). */
async function movedPerTask(db: Db, k: number, rounds: number): Promise<number> {
  const append = stmt(db, APPEND_INTAKE);
  const runs: number[] = [];
  const tx = db.transaction((move: boolean) => {
    const now = Date.now();
    const tally = new Tally();
    if (move) admit(db, tally, now);
    tally.flush(db);
  });
  for (let r = 0; r <= rounds; r++) {
    const now = Date.now();
    let empty = 0;
    let moving = 0;
    for (let j = 0; j < Math.ceil(512 / k); j++) {
      for (let i = 0; i < k; i++) append.run(intakeValues(rowOf(i, now)));
      let t0 = cpu();
      tx.immediate(false);
      empty += cpu() - t0;
      t0 = cpu();
      tx.immediate(true);
      moving += cpu() - t0;
    }
    if (r > 0) runs.push((moving - empty) / (Math.ceil(512 / k) * k));
  }
  runs.sort((a, b) => a - b);
  return runs[runs.length >> 1]!;
}

/**
 * The parts of one awaited enqueue of a plain handler task: the front door's validation, the token, the key, the
 * queue row and the append (each alone, on a file of their own); what moving it into Tasks adds later, one at a
 * time and 64 at a time; the same task written to Tasks directly (cumulative, in one transaction); the dedup
 * lookup; then, in alternating rounds on one file, the whole call, the store's call, its statements bare, and the
 * front door alone. `file(name)` gives a fresh file path.
 */
export async function singleParts(file: (name: string) => string, n: number, calls: SingleCalls): Promise<SingleFigures> {
  const raw = (i: number) => ({ command: 'bench.noop', payload: { i } });
  const input = (i: number): EnqueueInput => ({ kind: 'handler', command: 'bench.noop', payload: { i }, queue: 'default' });
  const parts: Part[] = [];
  parts.push({ part: 'validation (zod, handler known)', us: await timed(n, (i) => validateEnqueue(raw(i), context)) });
  parts.push({ part: 'token', us: await timed(n, () => newToken(Date.now())) });
  parts.push({
    part: 'key derivation (keyFrom $.k; a queue with keyFrom only)',
    us: await timed(n, (i) => taskKey(null, { k: i }, '$.k')),
  });
  const moved: Part[] = [];
  let direct: Part[] = [];
  const db = await migrated(file('parts-single'));
  try {
    parts.push({
      part: 'queue row (its defaults and keyFrom; a read)',
      us: await timed(n, () => stmt(db, GET_QUEUE_DEFAULTS).get('default')),
    });
    parts.push({
      part: 'append to the intake (one INSERT, its own transaction: its page written by its commit)',
      us: await timed(n, (i) => stmt(db, APPEND_INTAKE).run(intakeValues(rowOf(i, i)))),
    });
    stmt(db, CLEAR_INTAKE).run();
    moved.push({ part: 'one at a time (a claim right after each enqueue)', us: await movedPerTask(db, 1, ROUNDS) });
    moved.push({ part: '64 at a time', us: await movedPerTask(db, 64, ROUNDS) });
    const counts = new Enqueued();
    const tally = new Tally();
    const cache = new Map();
    direct = await steps(db, n, [
      ['queue row (its defaults and keyFrom)', (_i, now) => enqueueDefaults(db, 'default', now)],
      [
        'INSERT (its pages written by the commit)',
        (i, now) => {
          const row = taskRow(db, input(i), tally, now, cache, counts) as { params: unknown[] };
          insertRows(db, row.params);
        },
      ],
      [
        'kept counts (queue counts, per-second, per-minute)',
        (_i, now) => {
          counts.apply(tally, now);
          tally.flush(db);
        },
      ],
    ]);
    direct.push({ part: 'dedup lookup (with a dedupKey only)', us: await timed(n, (i) => stmt(db, FIND_DEDUP).get(`k${i}`)) });
  } finally {
    db.close();
  }
  await calls.store(input(-1)); // the queue row exists before the bare statements read it
  const side = openDatabase(calls.file);
  try {
    const t = await timedTogether(n, {
      whole: (i) => calls.whole(raw(i)),
      store: (i) => calls.store(input(i)),
      bare: bareEnqueue(side),
      front: (i) => calls.front(raw(i)),
    });
    const r = (ps: Part[]) => ps.map((p) => ({ part: p.part, us: round1(p.us) }));
    return { parts: r(parts), moved: r(moved), direct: r(direct), wholeUs: t.whole, storeUs: t.store, bareUs: t.bare, frontUs: t.front };
  } finally {
    side.close();
  }
}

/** The parts of one enqueueMany of `size` plain handler tasks, and the whole call. */
export async function bulkParts(
  file: (name: string) => string,
  calls: number,
  size: number,
  enqueueMany: (raws: unknown[]) => Promise<unknown>,
): Promise<{ parts: Part[]; wholeUs: number }> {
  const raws = Array.from({ length: size }, (_, i) => ({ command: 'bench.noop', payload: { i } }));
  const parts: Part[] = [];
  let inputs: EnqueueInput[] = [];
  parts.push({
    part: `validation of ${size}`,
    us: await timed(calls, async () => {
      inputs = await validateEnqueueMany(raws, context, 'tasks');
    }),
  });
  const db = await migrated(file('parts-bulk'));
  try {
    let params: unknown[] = [];
    let counts = new Enqueued();
    parts.push(
      ...(await steps(db, calls, [
        [
          `${size} rows (queue, tokens, parameters)`,
          (_i, now) => {
            const cache = new Map();
            counts = new Enqueued();
            params = [];
            for (const input of inputs)
              params.push(...(taskRow(db, input, new Tally(), now, cache, counts) as { params: unknown[] }).params);
          },
        ],
        [`INSERTs of ${size} (their pages written by the commit)`, () => insertRows(db, params)],
        [
          'kept counts',
          (_i, now) => {
            const tally = new Tally();
            counts.apply(tally, now);
            tally.flush(db);
          },
        ],
      ])),
    );
  } finally {
    db.close();
  }
  const wholeUs = await timed(calls, () => enqueueMany(raws));
  return { parts: parts.map((p) => ({ part: p.part, us: round1(p.us) })), wholeUs: round1(wholeUs) };
}
