// The dashboard answers while big writes go on: 20 concurrent POST /api/flows of 5,000 nodes each against a real
// `npm start` server (the built dashboard, its own SQLite file), while GET /api/stats is asked every 100 ms.
// better-sqlite3 is synchronous: a flow written in one go holds the event loop that serves every page for its
// whole length, and twenty of them queued made a stats request wait ~10 s. A big request now waits its turn
// (lib/server/big-requests.ts), is validated in slices (lib/engine/slices.ts) and written in slices on a
// connection of its own (db/sqlite/big-write.ts), so a read waits for a slice at most.
//
// What is asserted, about the product rather than the machine it runs on (this one is shared, often loaded):
// - stats' p99 during the writes ≤ 1 s, the budget widened only by how slow this machine answers the same
//   request at rest in the same run (10 × the baseline p99, when that is more than 100 ms), or by how many
//   processes wait for its cores (the 1-minute load average per core, when over 1: `npm test` runs this beside
//   the browser tests, at a lower priority);
// - stats' p99 is a small part (≤ 35 %) of the time the flows took: before, a stats request waited for almost all
//   of it (p99 ≈ 85 % of the total), whatever the machine's speed. Since, 0.14–0.22 idle and loaded alike: the
//   slowest request is one asked while the twenty requests arrive (each is routed and passes the access check
//   before it waits its turn), a fixed share of the whole that does not shrink on a busier machine;
// - every flow was created whole (201, 5,000 tokens; the counts the server reports add up).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, test } from 'vitest';
import { layeredDag, nodeId } from '../dag';
import { freePort, get, killGroup, until } from './processes';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FLOWS = 20;
const NODES = 5_000;
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

/** One GET /api/stats: its time (ms) and the tasks it counts. */
async function stats(base: string): Promise<{ ms: number; tasks: number }> {
  const t0 = performance.now();
  const r = await fetch(`${base}/api/stats`);
  const body = (await r.json()) as { totals: Record<string, number> };
  expect(r.status).toBe(200);
  return { ms: performance.now() - t0, tasks: Object.values(body.totals).reduce((a, b) => a + b, 0) };
}

test('GET /api/stats answers within 1 s (p99) while 20 flows of 5,000 nodes are written', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'readpast-writes-'));
  dirs.push(dir);
  const port = Number(process.env.READPAST_TEST_PORT ?? 0) || (await freePort());
  const base = `http://127.0.0.1:${port}`;
  const top = spawn(process.execPath, ['bin/start.mjs'], {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PORT: String(port), READPAST_DATABASE_URL: `sqlite:${join(dir, 'writes.db')}`, READPAST_WORKERS: '2' },
  });
  let output = '';
  top.stdout.on('data', (d) => (output += d));
  top.stderr.on('data', (d) => (output += d));
  try {
    await until(`the dashboard answering on :${port}\n${output}`, 240_000, async () =>
      (await get(`${base}/api/stats`))?.status === 200 ? true : undefined,
    );
    // the flows' queue is paused: the pool keeps claiming (and finding nothing) while they are written
    const queue = 'big-writes';
    const first = await fetch(`${base}/api/tasks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ command: 'demo.echo', queue, runAt: new Date(Date.now() + 3_600_000).toISOString() }),
    });
    expect(first.status).toBe(201);
    const paused = await fetch(`${base}/api/queues/${queue}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ paused: true }),
    });
    expect(paused.status).toBe(200);

    // at rest: the same request, warmed up, then timed one after the other
    for (let i = 0; i < 10; i++) await stats(base);
    const rest: number[] = [];
    for (let i = 0; i < 60; i++) rest.push((await stats(base)).ms);
    rest.sort((a, b) => a - b);
    const restP99 = percentile(rest, 99);

    // 20 layered graphs (10 layers × 500, 1–3 parents each in the layer before), bodies built before the clock starts
    const bodies = Array.from({ length: FLOWS }, (_, f) =>
      JSON.stringify({
        name: `big ${f}`,
        nodes: layeredDag(10, NODES / 10, 1, 3, 100 + f).map((ps, i) => ({
          id: nodeId(i),
          command: 'demo.echo',
          queue,
          payload: { f, i },
          ...(ps.length ? { dependsOn: ps.map(nodeId) } : {}),
        })),
      }),
    );
    const t0 = performance.now();
    let writing = true;
    const posts = Promise.all(
      bodies.map(async (body) => {
        const r = await fetch(`${base}/api/flows`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        return { status: r.status, json: (await r.json()) as { flowId?: number; tokens?: Record<string, string> } };
      }),
    ).finally(() => {
      writing = false;
    });
    // asked every 100 ms whether the last one has answered or not (one after the other would ask only once
    // during a long wait, and miss what every other request meanwhile would have waited)
    const asked: Promise<number>[] = [];
    while (writing) {
      asked.push(stats(base).then((r) => r.ms));
      await new Promise((r) => setTimeout(r, 100));
    }
    const created = await posts;
    const during = await Promise.all(asked);
    const flowsMs = performance.now() - t0;
    during.sort((a, b) => a - b);
    const p99 = percentile(during, 99);
    const waiting = Math.max(1, loadavg()[0]! / availableParallelism());
    const budget = Math.max(1000 * waiting, 10 * restP99);
    const load = loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
    console.log(
      `${FLOWS} flows × ${NODES} nodes written in ${Math.round(flowsMs)} ms; GET /api/stats meanwhile: ${during.length} requests, ` +
        `p50 ${Math.round(percentile(during, 50))} ms, p99 ${Math.round(p99)} ms, max ${Math.round(during[during.length - 1]!)} ms ` +
        `(at rest: p50 ${Math.round(percentile(rest, 50))} ms, p99 ${Math.round(restP99)} ms; budget ${Math.round(budget)} ms; ` +
        `p99 / flows' time ${(p99 / flowsMs).toFixed(3)}; load ${load})`,
    );

    for (const c of created) {
      expect(c.status, JSON.stringify(c.json).slice(0, 300)).toBe(201);
      expect(Object.keys(c.json.tokens ?? {})).toHaveLength(NODES);
    }
    expect(new Set(created.map((c) => c.json.flowId)).size).toBe(FLOWS);
    // every node of every flow is counted, and nothing else appeared
    expect((await stats(base)).tasks).toBe(FLOWS * NODES + 1);
    expect(during.length).toBeGreaterThanOrEqual(20);
    expect(p99).toBeLessThanOrEqual(budget);
    // on a machine too busy for the 1 s target (the budget follows the requests' time at rest), the wait is still a
    // small share of the writes' time: never the whole write, as when they held the request thread
    if (p99 > 1000) expect(p99 / flowsMs).toBeLessThanOrEqual(0.35);
  } finally {
    killGroup(top.pid!);
  }
}, 600_000);
