// Below lock escalation (sql/chunks.ts): no statement of the store writes 5,000 rows of one table. Two views: over the
// wire (the stand-in TDS endpoint decodes each request: the statement or procedure and the rows its JSON parameters
// carry), and in the text of the statements that act on many rows at once (test-support/escalation.ts reads each
// write and what bounds it: TOP, a chunk of a numbered set advanced by a loop, one row by key — or the bound of the
// request that feeds it, argued below).
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_FLOW_NODES } from '../../lib/engine/limits';
import type { AttemptResult, FlowInput } from '../../lib/engine/types';
import { FINISH_BATCH } from './settle';
import { BULK_DELETE, BULK_CANCEL, BULK_PRIORITY, BULK_RETRY, BULK_RUN_NOW, EDIT_TASK } from './sql/bulk';
import { CANCEL_BATCH } from './sql/batches';
import { ESCALATION_CHUNK } from './sql/chunks';
import { ENQUEUE_WRITE } from './sql/enqueue';
import { CANCEL_FLOW, CREATE_FLOW } from './sql/flows';
import { HOT, hotName } from './sql/hot';
import { PRUNE_REST, PRUNE_TASKS, RESCUE_BATCH, RESCUE_EXPIRED } from './sql/maintenance';
import { BULK_BATCH, CANCEL, DELETE_ONE, deleteFailedSql, RETRY_FLOW, RETRY_ONE, retryFailedSql } from './sql/operators';
import { FINISH, SETTLE_BATCHES } from './sql/settle';
import { writesOf, type Write } from './test-support/escalation';
import type { FakeReplier, FakeRequest } from './test-support/fake-tds';
import { asApp, closeFakeStores, openFakeStore } from './test-support/fake-store';
import { carriedRows } from './test-support/rpc';
import { SEND_EVENT_BODY } from './sql/events';
import { WAKE_DUE, WAKE_ONE } from './sql/steps';

/** SQL Server escalates one statement's locks on one table or index at about this many. */
const ESCALATES_AT = 5000;

const SHAPE = { queue: true, message: false, q: false };
/** The statements that act on many rows at once: a flow, a whole flow's cancel or retry, bulk actions, cascades, pruning. */
const STATEMENTS: Record<string, string> = {
  CREATE_FLOW,
  ENQUEUE_WRITE,
  CANCEL_FLOW,
  RETRY_FLOW,
  BULK_RETRY,
  BULK_CANCEL,
  BULK_DELETE,
  BULK_RUN_NOW,
  BULK_PRIORITY,
  EDIT_TASK,
  CANCEL,
  RETRY_ONE,
  DELETE_ONE,
  retryFailedSql: retryFailedSql(SHAPE),
  deleteFailedSql: deleteFailedSql(SHAPE),
  FINISH,
  RESCUE_EXPIRED,
  PRUNE_TASKS,
  PRUNE_REST,
  CANCEL_BATCH,
  SETTLE_BATCHES,
  SEND_EVENT_BODY,
  WAKE_DUE,
  WAKE_ONE,
};

/**
 * Kept aggregates and single rows: one row per distinct key a statement touches, never one per task — the counts per
 * (queue, status) of its slot, a second's Metrics row, a minute's (queue, command) history rows, the (batch, stage)
 * rows of the batches it moved tasks of, the batches or queues it names, a flow's own row, old workers and changes.
 */
const KEYED_TABLES = /^readpast\.(QueueCounts|Metrics|HistoryMinutes|BatchStages|Batches|Queues|Flows|Workers|QueueChanges|AuditLog)$/;

/** Writes over a set that the request or an earlier TOP bounds (the analysis sees only the join): statement, table, text, why. */
const BOUNDED_BY_INPUT: [statement: RegExp, table: string, text: string, why: string][] = [
  [/^BULK_/, 'readpast.Tasks', '@k', `a bulk request carries at most BULK_BATCH (${BULK_BATCH}) tokens: bulk.ts cuts what it is given`],
  [
    /^RESCUE_EXPIRED$/,
    '',
    '@expired',
    `at most RESCUE_BATCH (${RESCUE_BATCH}) expired attempts per call (TOP), and their tokens and log rows`,
  ],
  [/^RESCUE_EXPIRED$/, '', '@moves', `the rescued attempts' tokens and log rows: at most RESCUE_BATCH (${RESCUE_BATCH})`],
  [/^FINISH$/, '', '@r', `at most FINISH_BATCH (${FINISH_BATCH}) results per call (settle.ts cuts what the pool hands over)`],
  [/^FINISH$/, '', '@moves', `the settled attempts' tokens and log rows: at most FINISH_BATCH (${FINISH_BATCH})`],
  [/^FINISH$/, '', '@go', `the suspended attempts an event resumes at once: at most FINISH_BATCH (${FINISH_BATCH})`],
  [/^SEND_EVENT_BODY$/, 'readpast.Events', 'VALUES (@Event', 'one row: the event sent'],
  [
    /^(SEND_EVENT_BODY|WAKE_DUE|WAKE_ONE)$/,
    '',
    '@go',
    `the tasks resumed: a chunk of ESCALATION_CHUNK (${ESCALATION_CHUNK}) waits in a loop, a TOP of as many, or one`,
  ],
  [
    /^CANCEL_BATCH$/,
    'readpast.Tasks',
    "status = 'running'",
    "a batch's running tasks: no more than the workers running them (its pending ones are cancelled in chunks above)",
  ],
];

function unexplained(name: string, w: Write): boolean {
  if (w.bound || KEYED_TABLES.test(w.table)) return false;
  return !BOUNDED_BY_INPUT.some(([s, table, text]) => s.test(name) && (!table || table === w.table) && w.text.includes(text));
}

describe('no statement writes 5,000 rows of one table', () => {
  it('the chunk is far below the threshold, and every bound found holds one', () => {
    expect(ESCALATION_CHUNK).toBeLessThanOrEqual(ESCALATES_AT / 5);
    for (const n of [BULK_BATCH, RESCUE_BATCH, FINISH_BATCH]) expect(n).toBeLessThanOrEqual(ESCALATION_CHUNK);
  });

  it('every write of a task, edge, attempt, key or output row is bounded: TOP, a chunk in a loop, one row, or its input', () => {
    const found: string[] = [];
    let chunked = 0;
    for (const [name, text] of Object.entries(STATEMENTS)) {
      const writes = writesOf(text);
      expect(writes.length, name).toBeGreaterThan(0);
      for (const w of writes) {
        if (w.bound === 'chunk') chunked++;
        if (unexplained(name, w)) found.push(`${name}: ${w.table}: ${w.text.replace(/\s+/g, ' ').slice(0, 160)}`);
      }
    }
    expect(found).toEqual([]);
    expect(chunked).toBeGreaterThan(40);
  });

  it('the steps over a whole flow or a parent’s children write a numbered set in chunks, each in its loop', () => {
    const onTasks = (text: string) => writesOf(text).filter((w) => w.table === 'readpast.Tasks' || w.table === 'readpast.TaskEdges');
    // a whole flow cancelled: its nodes, then each level of the cascade (cancel, run, the run edges)
    expect(onTasks(CANCEL_FLOW).map((w) => w.bound)).toEqual(['chunk', 'chunk', 'chunk', 'chunk']);
    // a whole flow retried: its failed nodes, their edges synced, the children re-armed
    expect(onTasks(RETRY_FLOW).every((w) => w.bound === 'chunk')).toBe(true);
    // a parent's children released (and cancelled) at its settle: each statement a chunk
    const finish = onTasks(FINISH).filter((w) => w.bound !== null);
    expect(finish.length).toBeGreaterThanOrEqual(5);
    // the enqueue: tasks, keys and edges ESCALATION_CHUNK rows per statement
    expect(
      writesOf(ENQUEUE_WRITE)
        .filter((w) => /Tasks|TaskEdges|ConcurrencyKeys/.test(w.table))
        .map((w) => [w.table, w.bound]),
    ).toEqual([
      ['readpast.ConcurrencyKeys', 'chunk'],
      ['readpast.Tasks', 'chunk'],
      ['readpast.TaskEdges', 'chunk'],
    ]);
  });

  it('the analysis can fail: a whole-flow UPDATE in one statement is found', () => {
    const whole = "UPDATE t SET status = 'cancelled' FROM readpast.Tasks AS t WHERE t.flow_id = @flow_id;";
    expect(writesOf(whole)).toMatchObject([{ table: 'readpast.Tasks', bound: null }]);
    expect(unexplained('CANCEL_FLOW', writesOf(whole)[0]!)).toBe(true);
    // a chunk predicate with no loop advancing it is no bound
    const noLoop = 'UPDATE t SET priority = 1 FROM readpast.Tasks AS t JOIN @cx AS x ON x.id = t.id WHERE x.rn <= @cx_at + 1000;';
    expect(writesOf(noLoop)[0]!.bound).toBeNull();
  });
});

// ---- over the wire ------------------------------------------------------------------------------------------------

afterEach(closeFakeStores);

const open = (reply: FakeReplier) => openFakeStore(asApp(reply), { wakeMs: 0 });

const statementOf = (r: FakeRequest) => r.call?.statement ?? r.call?.procedure ?? r.text;

describe('over the wire', () => {
  it(`a flow of ${MAX_FLOW_NODES} nodes and ~20,000 edges: one request, its rows written by the enqueue in chunks`, async () => {
    const { tds, store: s } = await open((req) => {
      if (!req.call?.statement?.includes('INSERT INTO readpast.Flows')) return undefined;
      const tasks = JSON.parse(req.call.params.tasks as string) as { ord: number; token: string }[];
      const results = JSON.stringify(tasks.map((t) => ({ ord: t.ord, token: t.token, created: 1 })));
      return {
        sets: [
          {
            columns: [
              ['flow_id', 'bigint'],
              ['results', 'nvarcharmax'],
            ],
            rows: [[9, results]],
          },
        ],
      };
    });
    const nodes: FlowInput['nodes'] = Array.from({ length: MAX_FLOW_NODES }, (_, i) => ({
      id: `n${i}`,
      task: { kind: 'handler' as const, command: 'demo.echo', payload: { i } },
      dependsOn: [i - 1, i - 2].filter((p) => p >= 0).map((p) => ({ id: `n${p}`, onParentFailure: 'cancel' as const })),
    }));
    const r = await s.commands.createFlow({ name: 'big', caller: null, nodes });
    expect(r.flowId).toBe(9);
    const sent = tds.requests().filter((q) => q.call?.params.tasks !== undefined);
    expect(sent).toHaveLength(1);
    const req = sent[0]!;
    expect(req.call!.statement!.endsWith(CREATE_FLOW)).toBe(true);
    expect(carriedRows(req.call!)).toMatchObject({ tasks: MAX_FLOW_NODES });
    const edges = (JSON.parse(req.call!.params.tasks as string) as { dependsOn: unknown[] | null }[]).reduce(
      (n, t) => n + (t.dependsOn?.length ?? 0),
      0,
    );
    expect(edges).toBe(2 * MAX_FLOW_NODES - 3);
    // one atomic transaction: the Flows row, then the enqueue procedure, whose writes of these rows are chunked
    expect(CREATE_FLOW).toContain(`EXEC ${hotName(HOT.enqueue)} @tasks = @tasks`);
    expect(writesOf(CREATE_FLOW).map((w) => w.table)).toEqual(['readpast.Flows']);
    for (const w of writesOf(ENQUEUE_WRITE).filter((x) => /Tasks|TaskEdges|ConcurrencyKeys/.test(x.table))) expect(w.bound).toBe('chunk');
  });

  it('a bulk action over 10,000 tokens: requests of at most BULK_BATCH tokens each', async () => {
    const { tds, store: s } = await open((req) =>
      req.call?.params.tokens !== undefined
        ? {
            sets: [
              {
                columns: [
                  ['done', 'int'],
                  ['found', 'int'],
                ],
                rows: [[0, 0]],
              },
            ],
          }
        : undefined,
    );
    const tokens = Array.from({ length: 10_000 }, (_, i) => `0193a000-0000-7000-8000-${String(i).padStart(12, '0')}`);
    const out = await s.commands.bulk('cancel', tokens, {});
    expect(out.missing).toBe(10_000);
    const sent = tds.requests().filter((q) => q.call?.params.tokens !== undefined);
    expect(sent).toHaveLength(10_000 / BULK_BATCH);
    for (const q of sent) {
      expect(carriedRows(q.call!).tokens).toBeLessThanOrEqual(BULK_BATCH);
      expect(statementOf(q).endsWith(BULK_CANCEL)).toBe(true);
    }
  });

  it('a finish of 1,200 results: calls of at most FINISH_BATCH results each, the answers put back in order', async () => {
    const { tds, store: s } = await open((req) => {
      if (req.call?.procedure !== hotName(HOT.finish) && !req.call?.statement?.includes(`EXEC ${hotName(HOT.finish)} `)) return undefined;
      const rows = (JSON.parse(req.call.params.results as string) as { ord: number; taskId: number }[]).map((r) => [
        r.ord,
        r.taskId % 2,
        0,
      ]);
      return {
        sets: [
          {
            columns: [
              ['ord', 'int'],
              ['ok', 'int'],
              ['frees', 'int'],
            ],
            rows,
          },
        ],
      };
    });
    const results: AttemptResult[] = Array.from({ length: 1200 }, (_, i) => ({
      taskId: i + 1,
      workerId: 'w',
      attempt: 1,
      settlement: { kind: 'succeeded', result: null },
    }));
    const accepted = await s.worker.finish(results);
    expect(accepted.map((ok, i) => ok === ((i + 1) % 2 === 1))).not.toContain(false);
    const sent = tds.requests().filter((q) => q.call?.params.results !== undefined);
    expect(sent.map((q) => carriedRows(q.call!).results)).toEqual([FINISH_BATCH, FINISH_BATCH, 1200 - 2 * FINISH_BATCH]);
  });

  it('a whole flow cancelled or retried: one request naming the flow; the statements chunk its rows', async () => {
    const { tds, store: s } = await open((req) =>
      req.call?.params.flow_id !== undefined
        ? {
            sets: [
              {
                columns: [
                  ['found', 'int'],
                  ['cancelled', 'int'],
                  ['cancel_requested', 'int'],
                  ['retried', 'int'],
                ],
                rows: [[1, 0, 0, 0]],
              },
            ],
          }
        : undefined,
    );
    await s.commands.cancelFlow(9);
    await s.commands.retryFlow(9);
    const sent = tds.requests().filter((q) => q.call?.params.flow_id !== undefined);
    expect(sent.map((q, i) => statementOf(q).endsWith([CANCEL_FLOW, RETRY_FLOW][i]!))).toEqual([true, true]);
    for (const q of sent) expect(carriedRows(q.call!)).toEqual({});
  });
});
