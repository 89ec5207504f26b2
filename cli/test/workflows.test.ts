// Workflows across processes: a seeded random DAG of 1,000 nodes (fan-in 0..5) created at once with rp.flow,
// drained by three `readpast worker` processes on one SQLite file, one of them SIGKILLed while it runs nodes.
// From the ExecutionLog: every node succeeded exactly once (the dead process's attempts abandoned by the lease
// rescue, then run again), no attempt of a node started before every parent's succeeded attempt had ended,
// and no node waited after its last parent succeeded for longer than the poll interval + 1 s, plus the longest
// the test process itself was kept from running meanwhile (a machine busy enough to stall a process stalls the
// workers as much; measured, not assumed), and none anywhere near a lease (its first attempt's start, so a node
// the dead process had started is measured by the start it had there). Each node's handler saw its parents'
// results (ctx.parents), read from the other processes' settlements.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { POOL_DEFAULTS } from '../../lib/engine/pool-options';
import { edgeCount, nodeId, randomDag } from '../../bin/dag';
import { testBed } from './bed';
import { queueAttempts, queueTasks, startMs } from './throttle';
import { measureStalls, waitFor, WorkerProcess } from './helpers';
import { readModelOf } from '../../lib/api/readpast';

const QUEUE = 'wf';
const NODES = 1000;
const MAX_FAN_IN = 5;
const SEED = 25;
/** parents are drawn among the 80 nodes before: a graph tens of levels deep */
const WINDOW = 80;
const PROCESSES = 3;
const CONCURRENCY = 8;
/**
 * 5 s: the killed process's attempts are rescued soon after it dies, and a live process is never late enough to
 * lose one (it renews every second): with 2 s, a loaded machine (load 12) stalled live processes past their leases
 * and their attempts were rescued too
 */
const LEASE_S = 5;
/** the CLI worker's poll interval: how late another process may notice a task its parent's settle made pending */
const POLL_MS = POOL_DEFAULTS.pollMs;
const MAX_WAIT_MS = POLL_MS + 1000;

/** Sleeps payload.ms; returns its node id and the node ids of the parents it was handed, each checked. */
const NODE_HANDLER = `
export function register(registry) {
  registry.register('test.node', async (payload, ctx) => {
    await new Promise((resolve) => setTimeout(resolve, payload.ms));
    const bad = ctx.parents.filter((p) => p.status !== 'succeeded' || p.result?.node !== p.nodeId);
    return { node: payload.node, parents: ctx.parents.map((p) => p.nodeId), bad: bad.map((p) => p.token) };
  });
}
`;

const endMs = (a: { endedAt: Date | string | null }): number => new Date(a.endedAt!).getTime();

function summary(ms: number[]): string {
  const s = [...ms].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return `p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${s.at(-1)} ms over ${s.length} nodes`;
}

describe('a flow of 1,000 nodes across three worker processes, one killed', () => {
  const bed = testBed();

  it('runs every node once, never before its parents succeeded, and soon after', async () => {
    const { db, lib, workers } = bed;
    writeFileSync(join(db.dir, 'node.mjs'), NODE_HANDLER);
    const args = ['--concurrency', String(CONCURRENCY), '--lease-seconds', String(LEASE_S), '--handlers', './node.mjs', '--queues', QUEUE];
    for (let p = 0; p < PROCESSES; p++) workers.push(new WorkerProcess(args, { env: db.env, cwd: db.dir }));
    const idsByProcess = await Promise.all(workers.map((w) => w.started()));
    const processOf = new Map(idsByProcess.flatMap((ids, p) => ids.map((id) => [id, p] as const)));
    // the test process knows the handler's name too, so the flow's validation accepts it
    lib.registry.register('test.node', () => null);

    const parents = randomDag(NODES, MAX_FAN_IN, SEED, WINDOW);
    const ms = (i: number) => 10 + ((i * 37) % 41);
    const nodes = parents.map((ps, i) => ({
      id: nodeId(i),
      command: 'test.node',
      queue: QUEUE,
      payload: { node: nodeId(i), ms: ms(i) },
      ...(ps.length ? { dependsOn: ps.map(nodeId) } : {}),
    }));
    const stalls = measureStalls();
    const created = Date.now();
    const { flowId, tokens } = await lib.flow({ name: 'random-1000', nodes });
    console.info(`workflows: flow of ${NODES} nodes, ${edgeCount(parents)} edges created in ${Date.now() - created} ms`);
    const tokenOf = (i: number) => tokens[nodeId(i)]!;
    expect(Object.keys(tokens)).toHaveLength(NODES);

    // mid-run, the process running the most nodes is killed; what it held stays running until its leases lapse
    const counts = async () => (await readModelOf(lib).countsByQueue()).find((c) => c.queue === QUEUE);
    await waitFor(async () => ((await counts())?.succeeded ?? 0) >= NODES / 3, {
      timeoutMs: 30_000,
      intervalMs: 20,
      what: 'a third of the nodes',
      workers,
    });
    // (a moment when some process runs nodes: on a busy machine all of them can be between claims)
    let runningBy = new Map<number, number>();
    await waitFor(
      async () => {
        runningBy = (await readModelOf(lib).listRunning()).reduce(
          (m, r) => m.set(processOf.get(r.workerId)!, (m.get(processOf.get(r.workerId)!) ?? 0) + 1),
          new Map<number, number>(),
        );
        return runningBy.size > 0;
      },
      { timeoutMs: 30_000, intervalMs: 5, what: 'a process running nodes', workers },
    );
    const victimAt = [...runningBy.entries()].sort((a, b) => b[1] - a[1])[0]![0];
    const victim = workers[victimAt]!;
    const killedIds = new Set(idsByProcess[victimAt]);
    expect((await victim.stop('SIGKILL')).signal).toBe('SIGKILL');
    const held = (await readModelOf(lib).listRunning()).filter((r) => killedIds.has(r.workerId));
    expect(held.length, 'the killed process was running nodes').toBeGreaterThan(0);
    const atKill = (await counts())!;
    expect(atKill.succeeded, 'killed mid-run').toBeLessThan(NODES - 100);

    await waitFor(
      async () => {
        const c = await counts();
        return c !== undefined && c.succeeded + c.dead + c.cancelled === NODES && c.waiting + c.pending + c.running === 0;
      },
      { timeoutMs: 60_000, intervalMs: 100, what: `${NODES} nodes to finish`, workers },
    );
    const drained = Date.now() - created;
    const stallMs = stalls.stop();

    // ---- every node succeeded, with exactly one succeeded attempt; the others are the dead process's, abandoned
    const tasks = await queueTasks(lib, QUEUE);
    expect(tasks).toHaveLength(NODES);
    expect(tasks.filter((t) => t.status !== 'succeeded').map((t) => `${t.flowNode} ${t.status}`)).toEqual([]);
    expect(tasks.every((t) => t.flowId === flowId && t.parentsLeft === 0)).toBe(true);
    const attempts = (await queueAttempts(lib, QUEUE)).sort((a, b) => startMs(a) - startMs(b) || a.id - b.id);
    const byToken = new Map<string, typeof attempts>();
    for (const a of attempts) byToken.set(a.token, [...(byToken.get(a.token) ?? []), a]);
    const once = parents
      .map((_, i) => byToken.get(tokenOf(i)) ?? [])
      .filter((list) => list.filter((a) => a.outcome === 'succeeded').length !== 1);
    expect(once.map((list) => `${list[0]?.token}: ${list.map((a) => a.outcome)}`)).toEqual([]);
    const abandoned = attempts.filter((a) => a.outcome !== 'succeeded');
    expect(abandoned.map((a) => `${a.id} ${a.outcome}`).sort()).toEqual(held.map((r) => `${r.attemptId} abandoned`).sort());
    for (const r of held) {
      const rerun = byToken.get(r.token)!.find((a) => a.outcome === 'succeeded')!;
      expect(killedIds.has(rerun.workerId!), `${r.token} ran again on a live process`).toBe(false);
    }

    // ---- from the ExecutionLog's times: no attempt before every parent's success, none long after it
    const succeededAt = new Map(attempts.filter((a) => a.outcome === 'succeeded').map((a) => [a.token, a]));
    const early: string[] = [];
    const waits: number[] = [];
    parents.forEach((ps, i) => {
      if (ps.length === 0) return;
      const mine = byToken.get(tokenOf(i))!;
      const lastParentEnd = Math.max(...ps.map((p) => endMs(succeededAt.get(tokenOf(p))!)));
      for (const a of mine) {
        if (startMs(a) < lastParentEnd)
          early.push(`${nodeId(i)} attempt ${a.attempt} started ${lastParentEnd - startMs(a)} ms before a parent ended`);
      }
      waits.push(startMs(mine[0]!) - lastParentEnd);
    });
    expect(early).toEqual([]);
    const bound = MAX_WAIT_MS + stallMs;
    const late = waits.filter((w) => w > bound);
    console.info(
      `workflows: drained in ${drained} ms; ${held.length} attempts abandoned by the killed process (at ${atKill.succeeded} succeeded); ` +
        `start after the last parent's success: ${summary(waits)} (bound ${MAX_WAIT_MS} ms + the longest stall of this process, ` +
        `${stallMs} ms)`,
    );
    expect(late, `nodes that waited over ${bound} ms after their last parent succeeded`).toEqual([]);
    // whatever the stalls, no node waited for something that takes a lease (a rescue) rather than a poll
    expect(Math.max(...waits)).toBeLessThan(LEASE_S * 1000);

    // ---- each handler was handed exactly its parents, each with its result
    const resultProblems = tasks.flatMap((t) => {
      const r = t.result as { node: string; parents: string[]; bad: string[] };
      const i = Number(t.flowNode!.slice(1));
      const want = parents[i]!.map(nodeId);
      return r.node === t.flowNode && r.bad.length === 0 && [...r.parents].sort().join() === want.join()
        ? []
        : [`${t.flowNode}: ${JSON.stringify(r)}`];
    });
    expect(resultProblems).toEqual([]);

    // ---- the flow as the read model tells it: every node succeeded, the edges as given, finished
    const flow = (await readModelOf(lib).getFlow(flowId))!;
    expect(flow.counts.succeeded).toBe(NODES);
    expect(flow.finishedAt).not.toBeNull();
    const edges = new Set(parents.flatMap((ps, i) => ps.map((p) => `${tokenOf(p)}>${tokenOf(i)}`)));
    expect(flow.edges).toHaveLength(edges.size);
    expect(flow.edges.filter((e) => !edges.has(`${e.parent}>${e.child}`))).toEqual([]);

    for (const w of workers.filter((x) => x !== victim)) expect(await w.stop('SIGTERM')).toEqual({ code: 0, signal: null });
  }, 90_000);
});
