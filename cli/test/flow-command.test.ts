// `readpast flow …`, `readpast tasks --status waiting --flow ID` and `readpast enqueue --after` as users run
// them: real child processes over a temporary SQLite file. Output shapes, exit codes (2 bad input, 3 not
// found) and one-line errors naming the flag, the file or the node.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FlowJson, FlowSummaryJson } from '../../lib/api/flows';
import type { taskJson } from '../../lib/api/present';
import { BIN, cli, cliOk, limited, ROOT, statusOf, tempDb, UUID, type RunOptions, type RunResult, type TempDb } from './helpers';

type TaskJson = ReturnType<typeof taskJson>;

const later = new Date(Date.now() + 3_600_000).toISOString();
const node = (id: string, dependsOn?: string[]) => ({ id, command: 'demo.echo', runAt: later, ...(dependsOn ? { dependsOn } : {}) });
const diamond = {
  name: 'nightly',
  nodes: [node('load-a'), node('load-b'), node('merge', ['load-a', 'load-b']), node('notify', ['merge'])],
};

/** `readpast ARGS` with `input` on stdin */
function cliStdin(args: string[], input: string, env: NodeJS.ProcessEnv): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    child.stdin.end(input);
  });
}

/** exit `code` with one line on stderr that contains each of `parts` */
function refused(result: RunResult | undefined, code: number, ...parts: string[]) {
  const r = result!;
  expect(r.code, r.stderr).toBe(code);
  expect(r.stdout).toBe('');
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  for (const p of parts) expect(r.stderr).toContain(p);
}

describe('readpast flow', () => {
  let db: TempDb;
  let opts: RunOptions;
  let file: string;
  beforeAll(() => {
    db = tempDb();
    // a shared machine: commands started side by side may take a while each
    opts = { ...db, timeoutMs: 90_000 };
    file = join(db.dir, 'flow.json');
    writeFileSync(file, JSON.stringify(diamond));
  });
  afterAll(() => db.cleanup());

  it('create prints the id and each node token; show, list and tasks --status waiting --flow read it back', async () => {
    const out = await cliOk(['flow', 'create', file], opts);
    const [head, columns, ...rows] = out.trim().split('\n');
    expect(head).toMatch(/^flow [1-9]\d*: 4 node\(s\)$/);
    const id = Number(/^flow (\d+)/.exec(head!)![1]);
    expect(columns).toMatch(/^NODE\s+TOKEN$/);
    const tokens = Object.fromEntries(rows.map((r) => r.split(/\s+/) as [string, string]));
    expect(Object.keys(tokens).sort()).toEqual(['load-a', 'load-b', 'merge', 'notify']);
    for (const t of Object.values(tokens)) expect(t).toMatch(UUID);

    const [shown, shownJson, list, listJson, waiting, merge] = await Promise.all([
      cliOk(['flow', 'show', String(id)], opts),
      cliOk(['flow', 'show', String(id), '--json'], opts),
      cliOk(['flow', 'list', '--unfinished'], opts),
      cliOk(['flow', 'list', '--json'], opts),
      cliOk(['tasks', '--status', 'waiting', '--flow', String(id), '--json'], opts),
      cliOk(['status', tokens.merge!], opts),
    ]);
    expect(shown).toMatch(/nodes:\s+4 \(2 waiting, 2 pending\)/);
    expect(shown).toMatch(/edges:\s+3/);
    expect(shown).toMatch(/^waiting \(2\):$/m);
    expect(shown).toContain(tokens.notify);
    const f = JSON.parse(shownJson) as FlowJson;
    expect(f).toMatchObject({ id, name: 'nightly', nodes: 4, counts: { waiting: 2, pending: 2 }, finishedAt: null });
    expect(f.nodeList.map((n) => n.nodeId)).toEqual(['load-a', 'load-b', 'merge', 'notify']);
    expect(f.edges).toContainEqual({ parent: tokens.merge, child: tokens.notify, onParentFailure: 'cancel' });
    expect(list).toMatch(new RegExp(`^${id}\\s+nightly\\s+4\\s+2 waiting, 2 pending`, 'm'));
    expect((JSON.parse(listJson) as { items: FlowSummaryJson[] }).items.map((x) => x.id)).toEqual([id]);
    const w = JSON.parse(waiting) as { items: TaskJson[] };
    expect(w.items.map((t) => t.flowNode).sort()).toEqual(['merge', 'notify']);
    expect(merge).toMatch(/status:\s+waiting/);
    expect(merge).toMatch(/parents:\s+2 \(2 not done yet\)/);
    expect(merge).toContain(tokens['load-a']);

    // a continuation with --after: waiting, in the parent's flow, its policy kept
    const next = (
      await cliOk(['enqueue', '--handler', 'demo.echo', '--after', tokens.notify!, '--on-parent-failure', 'wait'], opts)
    ).trim();
    expect(next).toMatch(UUID);
    const s = await statusOf(next, opts);
    expect(s).toMatchObject({ status: 'waiting', flowId: id, flowNode: null, parentCount: 1, parentsLeft: 1 });
    expect(s.parents).toEqual([
      { token: tokens.notify, nodeId: 'notify', command: 'demo.echo', status: 'waiting', onParentFailure: 'wait' },
    ]);

    const cancelled = await cliOk(['flow', 'cancel', String(id)], opts);
    expect(cancelled).toMatch(new RegExp(`^cancelled flow ${id}: \\d+ node\\(s\\) cancelled\\n$`));
    // the continuation is a node of the flow too: cancelled with it, retried with it
    expect((JSON.parse(await cliOk(['flow', 'show', String(id), '--json'], opts)) as FlowJson).counts).toMatchObject({
      waiting: 0,
      pending: 0,
      cancelled: 5,
    });
    const retried = await cliOk(['flow', 'retry', String(id)], opts);
    expect(retried).toMatch(new RegExp(`^retried flow ${id}: \\d+ node\\(s\\)`));
    expect((JSON.parse(await cliOk(['flow', 'show', String(id), '--json'], opts)) as FlowJson).counts).toMatchObject({
      pending: 2,
      waiting: 3,
      cancelled: 0,
    });
  });

  it('create - reads the flow from stdin; --json prints {flowId, tokens}', async () => {
    const r = await cliStdin(['flow', 'create', '-', '--json'], JSON.stringify(diamond), db.env);
    expect(r.code, r.stderr).toBe(0);
    const created = JSON.parse(r.stdout) as { flowId: number; tokens: Record<string, string> };
    expect(created.flowId).toBeGreaterThan(0);
    expect(Object.keys(created.tokens)).toHaveLength(4);
  });

  it('refuses bad input with exit 2 and one line naming the flag, file or node; unknown ids exit 3', async () => {
    const cycle = join(db.dir, 'cycle.json');
    writeFileSync(cycle, JSON.stringify({ nodes: [node('a', ['b']), node('b', ['a'])] }));
    const unknown = join(db.dir, 'unknown.json');
    writeFileSync(unknown, JSON.stringify({ nodes: [node('a', ['zz'])] }));
    const broken = join(db.dir, 'broken.json');
    writeFileSync(broken, '{"nodes": [');
    const [c, u, b, missing, none, noFile, badId, showUnknown, cancelUnknown, after, afterUnknown, policy, status] = await limited(
      [
        ['flow', 'create', cycle],
        ['flow', 'create', unknown],
        ['flow', 'create', broken],
        ['flow', 'create', join(db.dir, 'nope.json')],
        ['flow'],
        ['flow', 'create'],
        ['flow', 'show', '1;DROP'],
        ['flow', 'show', '999999'],
        ['flow', 'cancel', '999999'],
        ['enqueue', '--handler', 'demo.echo', '--after', 'nope'],
        ['enqueue', '--handler', 'demo.echo', '--after', '00000000-0000-4000-8000-000000000000'],
        ['enqueue', '--handler', 'demo.echo', '--on-parent-failure', 'run'],
        ['tasks', '--status', 'lost'],
      ],
      3,
      (args) => cli(args, opts),
    );
    refused(c, 2, 'readpast flow create: nodes: cycle: b → a → b');
    refused(u, 2, 'nodes.0.dependsOn.0', '"zz"');
    refused(b, 2, 'FILE: invalid JSON');
    refused(missing, 2, 'FILE: cannot read', 'ENOENT');
    refused(none, 2, 'SUBCOMMAND: missing');
    refused(noFile, 2, 'FILE: missing');
    refused(badId, 2, 'ID: not a flow id');
    refused(showUnknown, 3, 'no flow 999999');
    refused(cancelUnknown, 3, 'no flow 999999');
    refused(after, 2, '--after: not a task token');
    refused(afterUnknown, 2, '--after: no task with token 00000000-0000-4000-8000-000000000000');
    refused(policy, 2, '--on-parent-failure: needs --after');
    refused(status, 2, '--status: must be one of waiting, pending');
  });

  it('help documents flow, tasks and enqueue --after', async () => {
    const [general, flow, enqueue, tasks] = await Promise.all([
      cliOk(['help'], opts),
      cliOk(['help', 'flow'], opts),
      cliOk(['enqueue', '--help'], opts),
      cliOk(['help', 'tasks'], opts),
    ]);
    expect(general).toMatch(/flow create FILE/);
    expect(general).toMatch(/tasks \[--status S\]/);
    expect(flow).toMatch(/onParentFailure/);
    expect(flow).toMatch(/cancel, run or wait|cancel \(it is cancelled/);
    expect(enqueue).toContain('--after TOKEN');
    expect(enqueue).toContain('--on-parent-failure');
    expect(tasks).toContain('--flow ID');
  });
});
