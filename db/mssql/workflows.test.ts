// Workflows on SQL Server (migration 20; the rules in lib/engine/types/flows.ts): what the migration installs, the
// lock order of the enqueue's parents and of the settle's children, the T-SQL callers' @DependsOn, the enqueue's
// refusal of an unknown parent named by field, and the claim reading parents on its own session only when a claimed
// task has some (against the stand-in TDS endpoint). The statements themselves run in mssql.contract.test.ts (with
// a server) and parse in tsql-parse.test.ts.
import { afterEach, describe, expect, it } from 'vitest';
import { ValidationError } from '../../lib/engine/errors';
import { enqueueError, enqueueRow } from './enqueue';
import { CODE_OBJECTS } from './code-objects';
import { CALLER_PROCEDURES } from './sql/callers';
import { CASCADE_FAILURE, RELEASE_CHILDREN, REARM_CHILDREN } from './sql/edges';
import { ENQUEUE_WRITE } from './sql/enqueue';
import { CLAIM_PARENTS } from './sql/flows';
import { HOT, hotBareName, hotName } from './sql/hot';
import { CANCEL_WRITE, DELETE_ONE, RETRY_ONE_WRITE } from './sql/operators';
import { FINISH } from './sql/settle';
import { PRUNE_TASKS } from './sql/maintenance';
import { CLAIM_COLUMNS, claimSlotsOf, cleanupReply } from './test-support/replies';
import type { FakeConnection, FakeReplier, FakeReply, FakeRequest, FakeTds } from './test-support/fake-tds';
import { asApp, closeFakeStores, openFakeStore } from './test-support/fake-store';
import { migration as v20 } from './versions/v20-workflows';

function at(text: string, needle: string, from = 0): number {
  const i = text.indexOf(needle, from);
  expect(i, needle).toBeGreaterThanOrEqual(0);
  return i;
}

describe('migration 20', () => {
  it('holds DDL only: the procedures that use its columns are installed by content after the migrations', () => {
    expect(v20.batches.join('\n')).not.toMatch(/CREATE OR ALTER PROCEDURE|GRANT /);
    expect(CODE_OBJECTS.map((o) => o.name)).toEqual(expect.arrayContaining([hotBareName(HOT.enqueue), 'ExecAsync', 'CancelTask']));
  });

  it('adds waiting to the statuses, and to the dedup key’s unfinished tasks', () => {
    const all = v20.batches.join('\n');
    expect(all).toContain("CHECK (status IN ('waiting', 'pending', 'running', 'succeeded', 'dead', 'cancelled'))");
    expect(all).toContain("WHERE dedup_key IS NOT NULL AND status IN ('waiting', 'pending', 'running')");
    expect(all).toMatch(/CONSTRAINT PK_TaskEdges PRIMARY KEY CLUSTERED \(parent_id, child_id\)/);
    expect(all).toContain('IX_TaskEdges_child ON readpast.TaskEdges (child_id, parent_id)');
    expect(all).toContain('IX_Tasks_flow ON readpast.Tasks (flow_id, status)');
  });
});

describe('lock order: parents before their children, Tasks before TaskEdges', () => {
  it('the enqueue locks the parents (UPDLOCK, ROWLOCK) before it inserts the tasks, then the edges', () => {
    const lock = at(ENQUEUE_WRITE, 'JOIN readpast.Tasks AS t WITH (UPDLOCK, ROWLOCK, READCOMMITTEDLOCK) ON t.id = p.id');
    const insert = at(ENQUEUE_WRITE, 'INSERT INTO readpast.Tasks');
    const edges = at(ENQUEUE_WRITE, 'INSERT INTO readpast.TaskEdges');
    expect(at(ENQUEUE_WRITE, 'INSERT INTO readpast.ConcurrencyKeys')).toBeLessThan(lock);
    expect(lock).toBeLessThan(insert);
    expect(insert).toBeLessThan(edges);
  });

  it('the finish settles its tasks, then releases and cancels their children: Tasks rows before their edges', () => {
    const settle = at(FINISH, 'UPDATE t\n  SET status = CASE r.kind');
    expect(settle).toBeLessThan(at(FINISH, RELEASE_CHILDREN));
    expect(at(FINISH, RELEASE_CHILDREN)).toBeLessThan(at(FINISH, CASCADE_FAILURE));
    for (const fragment of [RELEASE_CHILDREN, CASCADE_FAILURE, REARM_CHILDREN]) {
      const firstTasksWrite = at(fragment, 'FROM readpast.Tasks AS c');
      expect(firstTasksWrite).toBeLessThan(at(fragment, 'UPDATE e SET done'));
    }
    // iterative, level by level: no recursive CTE, no recursion limit
    for (const t of [CASCADE_FAILURE, REARM_CHILDREN]) {
      expect(t).toContain('WHILE EXISTS');
      expect(t).not.toMatch(/MAXRECURSION|WITH RECURSIVE/i);
    }
  });

  it('cancel and retry apply the policies and re-arm; delete and prune keep what an unfinished task depends on', () => {
    expect(CANCEL_WRITE).toContain(CASCADE_FAILURE);
    expect(RETRY_ONE_WRITE).toContain(REARM_CHILDREN);
    expect(RETRY_ONE_WRITE).toContain("CASE WHEN t.parents_left > 0 THEN 'waiting' ELSE 'pending' END");
    for (const t of [DELETE_ONE, PRUNE_TASKS]) expect(t).toContain("nc.status IN ('waiting', 'pending', 'running')");
    expect(PRUNE_TASKS).toContain('DELETE FROM readpast.Flows');
  });
});

describe('dependencies at enqueue', () => {
  it('ExecAsync takes @DependsOn and @OnParentFailure after the others, so positional calls of before still bind', () => {
    const exec = CALLER_PROCEDURES.find((p) => p.name === 'ExecAsync')!;
    // then only migration 22's @TraceParent
    expect(exec.params.slice(-3, -1)).toEqual(['@DependsOn nvarchar(max) = NULL', '@OnParentFailure nvarchar(10) = NULL']);
    expect(exec.body).toContain('THROW 50019, @err, 1;');
    expect(exec.body).toContain("N'@DependsOn: no task with token '");
    expect(exec.body).toContain('JSON_QUERY(@depends) AS dependsOn');
  });

  it('a row carries its parents by token, in order, with their policies', () => {
    const row = enqueueRow(
      {
        kind: 'handler',
        command: 'demo.echo',
        dependsOn: [
          { token: 'a', onParentFailure: 'cancel' },
          { token: 'b', onParentFailure: 'run' },
        ],
      },
      3,
    );
    expect(row.dependsOn).toEqual([
      { n: 0, token: 'a', ord: null, onParentFailure: 'cancel' },
      { n: 1, token: 'b', ord: null, onParentFailure: 'run' },
    ]);
    expect(enqueueRow({ kind: 'handler', command: 'demo.echo' }, 0).dependsOn).toBeNull();
  });

  it('an unknown parent is refused naming its field', () => {
    const err = enqueueError({ number: 51006, message: 'task 2, dependsOn.1: no task with token 0193abcd' }, (i) => `tasks.${i}.`);
    expect(err).toBeInstanceOf(ValidationError);
    expect(err).toMatchObject({ field: 'tasks.2.dependsOn.1' });
    expect((err as Error).message).toContain('no task with token 0193abcd');
  });
});

// ---- the claim reads its tasks' parents on the worker's own session, only when a claimed task has some ----------

let tds: FakeTds;

afterEach(closeFakeStores);

const isParents = (text: string) => text.includes('FROM readpast.TaskEdges AS e JOIN readpast.Tasks AS p');

function claimed(req: FakeRequest, conn: FakeConnection, parentCount: number): FakeReply {
  const now = new Date();
  const cols = [...CLAIM_COLUMNS, ['parent_count', 'int']] as const;
  const token = '00000000-0000-4000-8000-000000000007';
  const slot = claimSlotsOf(req, conn)[0]!;
  const row = [7, token, 'default', 'handler', 'demo.echo', '{}', 0, 1, 3, null, now, now, now, null, null, null, 1000, slot.session, 1];
  return { sets: [{ columns: cols, rows: [[...row, slot.workerId, parentCount]] }] };
}

const PARENTS: FakeReply = {
  sets: [
    {
      columns: [
        ['child_id', 'bigint'],
        ['token', 'nvarchar'],
        ['flow_node', 'nvarchar'],
        ['command', 'nvarchar'],
        ['status', 'nvarchar'],
        ['result', 'nvarchar'],
      ],
      rows: [
        [7, '00000000-0000-4000-8000-00000000000A', 'load-a', 'load', 'succeeded', '{"rows":3}'],
        [7, '00000000-0000-4000-8000-00000000000B', null, 'load', 'dead', null],
      ],
    },
  ],
};

async function claimWith(parentCount: number) {
  const reply: FakeReplier = (req, conn) => {
    if (req.text.includes(hotName(HOT.claim))) return claimed(req, conn, parentCount);
    if (isParents(req.text)) return PARENTS;
    return undefined;
  };
  const opened = await openFakeStore(asApp(reply), { wakeMs: 0 });
  tds = opened.tds;
  const { store } = opened;
  const workerId = `w-parents-${parentCount}`;
  const reg = await store.worker.registerWorker({ workerId, host: 'h', pid: 1, role: 'test' });
  const [task] = await store.worker.claim([{ workerId, session: reg.session }], { leaseMs: 30_000 });
  return task!;
}

describe('the claim and ctx.parents', () => {
  it('a task with parents: one more statement, on the claim’s own connection, parents by edge order', async () => {
    const task = await claimWith(2);
    expect(task.parents).toEqual([
      { token: '00000000-0000-4000-8000-00000000000a', nodeId: 'load-a', command: 'load', status: 'succeeded', result: { rows: 3 } },
      { token: '00000000-0000-4000-8000-00000000000b', nodeId: null, command: 'load', status: 'dead', result: null },
    ]);
    const claimConn = tds.logins().find((c) => c.requests.some((r) => r.text.includes(hotName(HOT.claim))));
    expect(claimConn?.requests.some((r) => isParents(r.text))).toBe(true);
    expect(CLAIM_PARENTS).toContain('ORDER BY e.child_id, e.parent_id');
  });

  it('a task without parents: no second statement', async () => {
    const task = await claimWith(0);
    expect(task.parents).toEqual([]);
    expect(tds.requests().some((r) => isParents(r.text))).toBe(false);
  });
});

describe('@Parents of a sql task', () => {
  it('a batch that names @Parents gets the parents’ results bound (sp_executesql); one that does not is sent as it is', async () => {
    const { tds, store } = await openFakeStore(
      asApp((req) => (req.text.includes('SELECT @@TRANCOUNT AS trancount') ? cleanupReply() : undefined)),
      { wakeMs: 0 },
    );
    const workerId = 'w-parents-sql';
    await store.worker.registerWorker({ workerId, host: 'h', pid: 1, role: 'test' });
    const parents = [{ token: 'tok-a', nodeId: 'a', command: 'load', status: 'succeeded' as const, result: { n: 1 } }];
    const session = tds.logins(/^readpast worker /).at(-1)!.spid;
    const signal = new AbortController().signal;
    await store.worker.runSql({ taskId: 1, attempt: 1, workerId, session, parents }, 'SELECT 1 AS one\nGO\nSELECT @parents AS p', signal);
    const sent = tds.requests(/^readpast worker /);
    const plain = sent.find((r) => r.text.includes('SELECT 1 AS one'))!;
    const bound = sent.find((r) => r.text.includes('SELECT @parents AS p'))!;
    expect(plain.kind).toBe('batch');
    expect(plain.text).not.toContain('tok-a');
    expect(bound.kind).toBe('rpc');
    expect(bound.text).toContain('"token":"tok-a"');
  });
});

describe('createFlow', () => {
  it('one request: the Flows row and the nodes, parents named by their order in the call; tokens come back by node id', async () => {
    let sentTasks = '';
    const reply: FakeReplier = (req) => {
      if (req.text.includes('INSERT INTO readpast.Flows')) {
        sentTasks = req.text;
        const tokens = [...req.text.matchAll(/"token":"([0-9a-f-]{36})"/g)].map((m) => m[1]!);
        const results = JSON.stringify(tokens.map((token, ord) => ({ ord, token, created: 1 })));
        return {
          sets: [
            {
              columns: [
                ['flow_id', 'bigint'],
                ['results', 'nvarchar'],
              ],
              rows: [[41, results]],
            },
          ],
        };
      }
      return undefined;
    };
    const { tds, store } = await openFakeStore(asApp(reply), { wakeMs: 0 });
    const task = (command: string) => ({ kind: 'handler' as const, command, payload: null });
    const r = await store.commands.createFlow({
      name: 'nightly',
      caller: null,
      nodes: [
        { id: 'load', task: task('load'), dependsOn: [] },
        { id: 'merge', task: task('merge'), dependsOn: [{ id: 'load', onParentFailure: 'run' }] },
      ],
    });
    expect(r.flowId).toBe(41);
    expect(Object.keys(r.tokens)).toEqual(['load', 'merge']);
    expect(r.tokens.load).not.toBe(r.tokens.merge);
    expect(sentTasks).toContain('"flowNode":"merge","dependsOn":[{"n":0,"token":null,"ord":0,"onParentFailure":"run"}]');
    expect(tds.requests().filter((q) => q.text.includes('INSERT INTO readpast.Flows'))).toHaveLength(1);
  });
});
