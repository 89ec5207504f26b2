// Part of `npm run bench` (alone: BENCH_ONLY=flows npm run bench): the cost of dependencies. A layered DAG of
// 10 layers × 1,000 trivial tasks (each task past the first layer depends on 1–3 tasks of the layer before,
// seeded) against the same 10,000 tasks without dependencies, each on its own SQLite file, drained by a pool of
// 16 with a no-op handler:
//  - drainRatio: the flow's drain rate / the plain tasks' (target ≥ 0.7): what a settle that releases children
//    and a claim that reads parents' results cost;
//  - createRatio: rp.flow's time / enqueueMany's for the same tasks (target ≤ 2): the edges' cost at creation.
// Ratios of runs on the same machine, each side the best of several taken in turns, so neither depends on the
// machine or on a busy moment of it.
import { join } from 'node:path';
import { openReadpast } from '../lib/api/open';
import type { Readpast } from '../lib/api/readpast';
import { drainRate } from './bench-drain';
import { edgeCount, layeredDag, nodeId } from './dag';

export const DRAIN_TARGET = 0.7;
export const CREATE_TARGET = 2;

export interface FlowsBench {
  tasks: number;
  edges: number;
  pool: number;
  plainPerSec: number;
  flowPerSec: number;
  /** flowPerSec / plainPerSec (target ≥ drainTarget) */
  drainRatio: number;
  enqueueManyMs: number;
  flowCreateMs: number;
  /** flowCreateMs / enqueueManyMs (target ≤ createTarget) */
  createRatio: number;
  /** the same in CPU time (printed, not judged: what the machine's other load hardly moves) */
  createCpuRatio: number;
  drainTarget: number;
  createTarget: number;
}

/** A store of its own with the tasks created (as a flow of `parents`, or without dependencies by enqueueMany). */
async function create(file: string, parents: number[][], asFlow: boolean): Promise<{ rp: Readpast; queue: string; created: Timing }> {
  const rp = await openReadpast({ url: `sqlite:${file}` });
  rp.registry.register('bench.noop', () => null);
  const queue = asFlow ? 'flow' : 'plain';
  const task = (i: number) => ({ command: 'bench.noop', queue, payload: { i } });
  // the requests are built before the clock starts: what is timed is the library's work on them
  const nodes = parents.map((ps, i) => ({ id: nodeId(i), ...task(i), ...(ps.length ? { dependsOn: ps.map(nodeId) } : {}) }));
  const tasks = parents.map((_, i) => task(i));
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  if (asFlow) await rp.flow({ nodes });
  else await rp.enqueueMany(tasks);
  const cpu = process.cpuUsage(cpu0);
  return { rp, queue, created: { ms: performance.now() - t0, cpuMs: (cpu.user + cpu.system) / 1000 } };
}

/** Wall-clock and CPU milliseconds (the CPU time of this process: what the machine's other load hardly moves). */
interface Timing {
  ms: number;
  cpuMs: number;
}

/** Creating alone. */
async function createOnly(file: string, parents: number[][], asFlow: boolean): Promise<Timing> {
  const { rp, created } = await create(file, parents, asFlow);
  await rp.close();
  return created;
}

const fastest = (a: Timing, b: Timing): Timing => ({ ms: Math.min(a.ms, b.ms), cpuMs: Math.min(a.cpuMs, b.cpuMs) });

/** Creating, then draining with a pool of `pool`: tasks per second. */
async function drained(file: string, parents: number[][], asFlow: boolean, pool: number): Promise<number> {
  const { rp, queue } = await create(file, parents, asFlow);
  try {
    return await drainRate(rp, queue, parents.length, pool);
  } finally {
    await rp.close();
  }
}

export async function benchFlows(dir: string, log: (...a: unknown[]) => void): Promise<FlowsBench> {
  const layers = 10;
  const width = Number(process.env.BENCH_FLOWS_WIDTH ?? 1000);
  const pool = 16;
  const parents = layeredDag(layers, width, 1, 3, 25);
  const tasks = parents.length;
  const edges = edgeCount(parents);
  log(`flows: ${layers} layers × ${width} tasks, ${edges} edges (1–3 parents in the layer before), pool of ${pool}`);
  // throwaway warm-ups of both paths; then each measure in turns (plain, flow), the best of each: creating five
  // times (it is short, so a busy moment of the machine weighs more), draining three times
  const warm = layeredDag(layers, 100, 1, 3, 7);
  await drained(join(dir, 'flows-warm-plain.db'), warm, false, pool);
  await drained(join(dir, 'flows-warm-flow.db'), warm, true, pool);
  let plainCreate: Timing = { ms: Infinity, cpuMs: Infinity };
  let flowCreate: Timing = { ms: Infinity, cpuMs: Infinity };
  for (let round = 1; round <= 5; round++) {
    const p = await createOnly(join(dir, `flows-create-plain-${round}.db`), parents, false);
    const f = await createOnly(join(dir, `flows-create-dag-${round}.db`), parents, true);
    const both = (t: Timing) => `${Math.round(t.ms)} ms (CPU ${Math.round(t.cpuMs)})`;
    log(`flows: create ${round}: enqueueMany ${both(p)}, rp.flow ${both(f)}`);
    plainCreate = fastest(plainCreate, p);
    flowCreate = fastest(flowCreate, f);
  }
  let plainPerSec = 0;
  let flowPerSec = 0;
  for (let round = 1; round <= 3; round++) {
    const p = await drained(join(dir, `flows-plain-${round}.db`), parents, false, pool);
    const f = await drained(join(dir, `flows-dag-${round}.db`), parents, true, pool);
    log(`flows: round ${round}: without dependencies ${Math.round(p)}/s, as a flow ${Math.round(f)}/s`);
    plainPerSec = Math.max(plainPerSec, p);
    flowPerSec = Math.max(flowPerSec, f);
  }
  const r3 = (x: number) => Math.round(x * 1000) / 1000;
  const drainRatio = r3(flowPerSec / plainPerSec);
  const createRatio = r3(flowCreate.ms / plainCreate.ms);
  const createCpuRatio = r3(flowCreate.cpuMs / plainCreate.cpuMs);
  const verdict = (ok: boolean) => (ok ? 'meets' : 'MISSES');
  log(`flows: drain without dependencies ${Math.round(plainPerSec)}/s, as a flow ${Math.round(flowPerSec)}/s (best of 3)`);
  log(`flows: drainRatio ${drainRatio} (${verdict(drainRatio >= DRAIN_TARGET)} the target ≥ ${DRAIN_TARGET})`);
  log(`flows: enqueueMany ${Math.round(plainCreate.ms)} ms, rp.flow ${Math.round(flowCreate.ms)} ms (best of 5)`);
  log(`flows: createRatio ${createRatio} (${verdict(createRatio <= CREATE_TARGET)} the target ≤ ${CREATE_TARGET})`);
  const cpu = `enqueueMany ${Math.round(plainCreate.cpuMs)} ms, rp.flow ${Math.round(flowCreate.cpuMs)} ms`;
  log(`flows: in CPU time ${cpu}: ratio ${createCpuRatio} (not judged: the machine's other load hardly moves it)`);
  return {
    tasks,
    edges,
    pool,
    plainPerSec: Math.round(plainPerSec),
    flowPerSec: Math.round(flowPerSec),
    drainRatio,
    enqueueManyMs: Math.round(plainCreate.ms),
    flowCreateMs: Math.round(flowCreate.ms),
    createRatio,
    createCpuRatio,
    drainTarget: DRAIN_TARGET,
    createTarget: CREATE_TARGET,
  };
}
