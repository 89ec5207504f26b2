// Every T-SQL statement the SQL Server store can send — each constant, every variant of the
// assembled ones, every migration batch, and the statements inside EXEC(N'…') — must parse with a
// T-SQL parser. No SQL Server runs here; this catches what a typo would otherwise only show in
// production.
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { init, parse } from '@guanmingchiu/sqlparser-ts';
import { beforeAll, describe, expect, it } from 'vitest';
import { CODE_OBJECTS } from './code-objects';
import { MIGRATIONS } from './schema';
import { BATCH_LIST_SHAPES } from './sql/batches';
import { FAILURE_SHAPES } from './sql/operators';
import { allListShapes, taskWindowShapes } from './sql/reads';
import { roleBatches } from './sql/callers';
import { HOT, HOT_PROCEDURES, hotBareName, hotName } from './sql/hot';
import { SCHEMA_GUARD } from './sql/migrations';

interface NamedStatement {
  name: string;
  text: string;
}

// ---- what the store can send: every module in sql/, found on disk ------------------------------

const SQL_DIR = fileURLToPath(new URL('./sql/', import.meta.url));
const MODULES: [string, Record<string, unknown>][] = await Promise.all(
  readdirSync(SQL_DIR)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
    .sort()
    .map(async (f) => [f.slice(0, -3), (await import(SQL_DIR + f)) as Record<string, unknown>] as [string, Record<string, unknown>]),
);

/** Exported strings that are pieces of statements, not statements (each must occur in one). */
const FRAGMENTS = new Set([
  'reads.TASK_COLUMNS',
  'reads.LOG_COLUMNS',
  'reads.STATUS_COLUMNS',
  'queues.QUEUE_VIEW_COLUMNS',
  'operators.DELETE_ATTEMPT_LOGS',
  'attempt-logs.DELETE_TASKS_OUTPUT',
  'tally.BEGIN',
  'tally.DECLARE_MOVES',
  'tally.MOVES_TO_DELTAS',
  'tally.TALLY',
  'tally.TOUCHED',
  'history.HISTORY_TALLY',
  'history.DECLARE_HIST',
  'enqueue.ENQUEUE_WRITE',
  'settle.SETTLE_BATCHES_WRITE',
  'operators.CANCEL_WRITE',
  'operators.RETRY_ONE_WRITE',
  'operators.PAST_ABORT',
  'callers.ALLOW_SQL_SETTING',
  'callers.CALLER_ROLE',
  'keys.RATE_USAGE_APPLY',
  'claim-steps.SET_LANE_ASIDE',
  'claim-steps.KEY_STEP',
  'claim-steps.TOKEN_STEP',
  'claim-steps.RATE_STEP',
  'keys.SCHEDULE_KEY',
  'keys.SCHEDULE_WALK',
  'edges.DECLARE_EDGES',
  'edges.RELEASE_CHILDREN',
  'edges.CASCADE_FAILURE',
  'edges.REARM_CHILDREN',
  'edges.RETRIED_STATUS',
  'edges.DECLARE_CANCELLED',
  'enqueue-deps.DECLARE_DEPS',
  'enqueue-deps.LINK_PARENTS',
  'enqueue-deps.INSERT_EDGES',
  'operators.DELETE_EDGES',
  'caller-checks.DEPENDENCY_CHECKS',
  'chunks.DECLARE_CHUNKS',
  'chunks.IN_CHUNK',
  'operators.RETRY_CANDIDATES',
  'caller-checks.TRACE_PARENT_CHECK',
  // durable handlers' pieces (sql/events.ts, sql/steps.ts): inside FINISH, SendEvent, the wake-ups and the deletes
  'events.RESUME',
  'events.DECLARE_GO',
  'events.SUSPEND_MATCH',
  'events.SEND_EVENT_BODY',
  'steps.PUT_SUSPENDED_STEPS',
  'steps.STEP_COLUMNS_DECLARED',
  'steps.STEP_JSON_COLUMNS',
]);

const json = (v: unknown) => JSON.stringify(v);

/** Every variant of each assembled statement (an exported function of sql/ that returns one). */
const VARIANTS: Record<string, (fn: (arg: never) => string) => NamedStatement[]> = {
  'operators.retryFailedSql': (fn) => FAILURE_SHAPES.map((s) => ({ name: ` ${json(s)}`, text: fn(s as never) })),
  'operators.deleteFailedSql': (fn) => FAILURE_SHAPES.map((s) => ({ name: ` ${json(s)}`, text: fn(s as never) })),
  'failures.groupPageSql': (fn) => FAILURE_SHAPES.map((s) => ({ name: ` ${json(s)}`, text: fn(s as never) })),
  'reads.listTasksSql': (fn) => allListShapes().tasks.map((s) => ({ name: ` ${json(s)}`, text: fn(s as never) })),
  'reads.taskWindowSql': (fn) => taskWindowShapes().map((s) => ({ name: ` ${json(s)}`, text: fn(s as never) })),
  'reads.listAttemptsSql': (fn) => allListShapes().attempts.map((s) => ({ name: ` ${json(s)}`, text: fn(s as never) })),
  'batches.listBatchesSql': (fn) => BATCH_LIST_SHAPES.map((s) => ({ name: ` ${json(s)}`, text: fn(s as never) })),
  // the first call of a store that does not migrate: the guard, then each procedure as EXEC text
  'hot.execText': (fn) =>
    HOT_PROCEDURES.map((p) => {
      const names = p.params.map((x) => /^@(\w+)/.exec(x)![1]!);
      const outs = p.params.filter((x) => x.endsWith(' OUTPUT')).map((x) => /^@(\w+)/.exec(x)![1]!);
      const call = (fn as unknown as (n: string, a: string[], o: string[]) => string)(
        hotName(p),
        names.filter((n) => !outs.includes(n)),
        outs,
      );
      return { name: `(${p.name})`, text: SCHEMA_GUARD + call };
    }),
  'live.killSql': (fn) => [1, 32767].map((n) => ({ name: `(${n})`, text: fn(n as never) })),
  'migrations.resetTablesSql': (fn) => [{ name: '([Tasks], [AuditLog])', text: fn(['[Tasks]', '[AuditLog]'] as never) }],
};

/** Exported functions of sql/ that build pieces or list shapes, not statements. */
const HELPERS = new Set([
  'operators.failureWhere',
  // a piece of retryFailedSql and BULK_RETRY, checked inside them
  'operators.heldCount',
  // builds the callers' parameter errors (checked inside them)
  'caller-checks.fail',
  // a piece of the deletes and the pruning, checked inside them
  'operators.neededByChild',
  // the cancel of BULK_CANCEL and CANCEL_FLOW, checked inside them
  'edges.cancelUnfinished',
  'reads.allListShapes',
  'reads.taskWindowShapes',
  // build the callers' procedures and grants (each checked as a code object)
  'callers.nameCheck',
  // durable handlers' pieces: the match of a payload, a JSON value's type, the step columns of FINISH's @r, the
  // chunked deletes of steps and events (checked inside FINISH, SendEvent, the deletes and PRUNE_REST)
  'events.matchesSql',
  'events.jsonTypeOf',
  'events.PRUNE_EVENTS',
  'steps.STEP_COLUMN_NAMES',
  'steps.DELETE_TASK_STEPS',
  'callers.createProcedure',
  'callers.roleBatches',
  // builds a piece of the history's statements
  'history.historyCommandOf',
  // name and build the hot procedures (each checked as a code object)
  'hot.hotName',
  'hot.hotHash',
  'hot.hotBareName',
  'hot.createHotProcedure',
  // pieces of the writers that make tasks pending (checked there)
  'keys.keyRowsFor',
  'keys.walkKeys',
  // pieces of the claim (checked in CLAIM)
  'claim-steps.keyRoom',
  'claim-steps.rateRoom',
  'claim-steps.rateKeyOf',
  // the loop of a chunked write (checked in the statements that use it)
  'chunks.inChunks',
]);

/** All statements: each constant, every variant of the assembled ones, every migration batch. */
function allStatements(): NamedStatement[] {
  const out: NamedStatement[] = [];
  for (const [mod, exports] of MODULES) {
    for (const [key, value] of Object.entries(exports)) {
      const name = `${mod}.${key}`;
      if (typeof value === 'string' && /^[A-Z][A-Z0-9_]*$/.test(key) && !FRAGMENTS.has(name)) out.push({ name, text: value });
      if (typeof value === 'function' && !HELPERS.has(name)) {
        const variants = VARIANTS[name];
        if (!variants) throw new Error(`${name} assembles a statement: list its variants in VARIANTS (or it in HELPERS)`);
        for (const v of variants(value as (arg: never) => string)) out.push({ name: name + v.name, text: v.text });
      }
    }
  }
  for (const m of MIGRATIONS) {
    m.batches.forEach((text, i) => out.push({ name: `migration ${m.version} batch ${i + 1}`, text }));
  }
  // the code objects, installed by content after the migrations (code-objects.ts), and the role's grants
  for (const o of CODE_OBJECTS) out.push({ name: `code object ${o.name}`, text: o.text });
  roleBatches().forEach((text, i) => out.push({ name: `role batch ${i + 1}`, text }));
  return out;
}

/**
 * Statements the parser does not know, each with the reason it is still right. Keep it short.
 * Matched against the statement text exactly.
 */
const EXEMPT: Record<string, string> = {
  // ALTER INDEX … SET (option) is valid T-SQL (SQL Server 2019+, guarded by a version check and run
  // through EXEC so older servers never compile it); the parser only knows ALTER INDEX … RENAME.
  'ALTER INDEX PK_Tasks ON readpast.Tasks SET (OPTIMIZE_FOR_SEQUENTIAL_KEY = ON)': 'ALTER INDEX options are not in the parser',
  'ALTER INDEX PK_ExecutionLog ON readpast.ExecutionLog SET (OPTIMIZE_FOR_SEQUENTIAL_KEY = ON)':
    'ALTER INDEX options are not in the parser',
};

// ALTER TABLE … ALTER COLUMN <type> [COLLATE …] is valid T-SQL (migrations 5 and 19, run through EXEC); the parser
// only knows ALTER COLUMN … SET/DROP. Those migrations are frozen: their statements are listed from their text.
const ALTER_COLUMN = /^ALTER TABLE readpast\.\w+ ALTER COLUMN \w+ n?(var)?char\(\d+\)( COLLATE Latin1_General_100_BIN2)? (NOT )?NULL$/;
for (const m of MIGRATIONS.filter((x) => x.version === 5 || x.version === 19))
  for (const b of m.batches)
    for (const n of nested(b)) if (ALTER_COLUMN.test(n)) EXEMPT[n] = 'ALTER COLUMN with a type is not in the parser';

/** The statements inside EXEC(N'…') (quotes doubled inside). */
function nested(text: string): string[] {
  const out: string[] = [];
  const re = /EXEC\s*\(\s*N'((?:[^']|'')*)'\s*\)/gi;
  for (let m = re.exec(text); m; m = re.exec(text)) out.push(m[1]!.replace(/''/g, "'"));
  return out;
}

/** A CREATE PROCEDURE's header: its name and parameter list, up to AS. */
const PROC_HEADER = /^CREATE OR ALTER PROCEDURE [\w.]+ \(([\s\S]*?)\n\)\nAS\n/;

/**
 * The parser does not know OUTPUT parameters (`@Token uniqueidentifier = NULL OUTPUT`): a procedure's
 * header is parsed without the word, the rest as it is.
 */
function parseable(text: string): string {
  return text.replace(PROC_HEADER, (header) => header.replace(/\s+OUTPUT(?=,?\n)/g, ''));
}

/** A procedure's parameters (lower case, with @): declared for the body. */
function procedureParams(text: string): string[] {
  const m = PROC_HEADER.exec(text);
  return m ? [...m[1]!.matchAll(/@(\w+)/g)].map((p) => `@${p[1]!.toLowerCase()}`) : [];
}

const parses = (text: string) => parse(parseable(text), 'mssql');

// ---- shape checks the parser leaves to the server: column counts and column names -------------

type Node = unknown;
type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null;

function walk(node: Node, visit: (key: string, value: unknown) => void): void {
  if (Array.isArray(node)) for (const n of node) walk(n, visit);
  else if (isObj(node)) {
    for (const [k, v] of Object.entries(node)) {
      visit(k, v);
      walk(v, visit);
    }
  }
}

/** `readpast.Tasks`, `@claimed` from an AST object name */
function nameOf(parts: unknown): string {
  return (parts as Obj[])
    .map((p) => ((p.Identifier as Obj | undefined)?.value ?? p.value) as string)
    .join('.')
    .toLowerCase();
}

/** Column count of every table variable a batch declares (a trailing PRIMARY KEY (…) is a constraint). */
function tableVariables(ast: Node): Map<string, number> {
  const out = new Map<string, number>();
  walk(ast, (k, v) => {
    if (k !== 'Declare' || !isObj(v)) return;
    for (const d of v.stmts as Obj[]) {
      const table = (d.data_type as Obj | undefined)?.Table as Obj[] | undefined;
      if (!table) continue;
      const columns = table.filter(
        (c) => !(((c.name as Obj).value as string).toUpperCase() === 'PRIMARY' && isObj(c.data_type) && 'Custom' in c.data_type),
      );
      for (const n of d.names as Obj[]) out.set((n.value as string).toLowerCase(), columns.length);
    }
  });
  return out;
}

/** Columns of every table the migrations create (and the columns later migrations add to them). */
function createdTables(asts: Node[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const added: [string, string][] = [];
  for (const ast of asts) {
    walk(ast, (k, v) => {
      if (k === 'CreateTable' && isObj(v)) {
        out.set(nameOf(v.name), new Set((v.columns as Obj[]).map((c) => ((c.name as Obj).value as string).toLowerCase())));
      }
      if (k === 'AlterTable' && isObj(v) && Array.isArray(v.operations)) {
        for (const op of v.operations as Obj[]) {
          const def = isObj(op.AddColumn) ? (op.AddColumn.column_def as Obj | undefined) : undefined;
          if (def) added.push([nameOf(v.name), ((def.name as Obj).value as string).toLowerCase()]);
        }
      }
    });
  }
  for (const [table, column] of added) out.get(table)?.add(column);
  return out;
}

/** How many values a query body yields per row. */
function width(body: unknown): number | null {
  if (!isObj(body)) return null;
  if (isObj(body.Select)) return (body.Select.projection as unknown[]).length;
  if (isObj(body.Values)) return ((body.Values.rows as Obj[])[0]?.content as unknown[] | undefined)?.length ?? null;
  if (isObj(body.SetOperation)) return width(body.SetOperation.left);
  if (isObj(body.Query)) return width((body.Query as Obj).body);
  return null;
}

/** Every variable a batch declares (scalars and tables). */
function declared(ast: Node): Set<string> {
  const out = new Set<string>();
  walk(ast, (k, v) => {
    if (k !== 'Declare' || !isObj(v)) return;
    for (const d of v.stmts as Obj[]) for (const n of d.names as Obj[]) out.add((n.value as string).toLowerCase());
  });
  return out;
}

/** The parameters the store passes to its statements (by name, without @). */
const PARAMETERS = new Set([
  // history.ts
  'roll_ms',
  'delay_ms',
  'max_ms',
  'bucket_ms',
  'from_ms',
  'to_ms',
  'bucket_s',
  'from_sec',
  'to_sec',
  'before_ms',
  'command',
  // alerts.ts
  'dedup_ms',
  'format',
  'params',
  'secret',
  'url',
  'cursors',
  'rule_id',
  'after_at',
  'after_id',
  'lag_ms',
  'scan',
  // audit.ts
  'actor',
  'source',
  'action',
  'action_prefix',
  'target',
  'before_json',
  'after_json',
  'n',
  'cursor',
  'limit',
  'tasks',
  'worker_id',
  'slots',
  'lease_ms',
  'queues',
  'unbatched_served',
  'results',
  'workers',
  'running',
  'token',
  'f_queue',
  'f_message',
  'f_q',
  // bulk.ts, failures.ts
  'f_fingerprint',
  'f_command',
  'offset',
  'trend_since',
  'from_status',
  'retry',
  'set_payload',
  'run_after',
  'prints',
  'cutoff',
  'stale_ms',
  'depth',
  'lookback_sec',
  'host',
  'pid',
  'role',
  'session',
  'login_time',
  'names',
  // running-preview.ts
  'tokens',
  // attempt-logs.ts
  'batch',
  'lines',
  'after_seq',
  'tag',
  'task_id',
  'attempt',
  'name',
  'set_limit',
  'limit',
  'set_paused',
  'paused',
  // queues.ts (throttle), throttle.ts, reads.ts
  'set_key_limit',
  'key_limit',
  'set_key_from',
  'key_from',
  'set_rate',
  'rate_limit',
  'rate_period',
  'rate_per_key',
  'key',
  'concurrency_key',
  'changed_by',
  'queue',
  'caller',
  'max_parallel',
  'on_failure',
  'id',
  'status',
  'cursor',
  'ids',
  'batches',
  'batch_id',
  'stage',
  'q',
  'q_token',
  // the task browser (sql/reads.ts listTasksSql, taskWindowSql)
  'priority_min',
  'priority_max',
  'payload_path',
  'payload_value',
  'floor',
  'offset',
  'from',
  'to',
  'since',
  'version',
  // schedules (sql/schedules.ts)
  'at',
  'expected',
  'fires',
  'next',
  'by',
  'cron',
  'timezone',
  'kind',
  'command',
  'payload',
  'priority',
  'max_attempts',
  'timeout_ms',
  'enabled',
  'misfire',
  'overlap',
  'next_fire_at',
  'source',
  'declared',
  'set_next',
  // settings (sql/callers.ts)
  'value',
  // the wake-up long poll (sql/wake.ts)
  'last',
  'wait_ms',
  // the schema check on a one-shot store's first statement (sql/migrations.ts: SCHEMA_GUARD; connection.ts)
  'readpast_code_version',
  // durable handlers (sql/steps.ts, sql/events.ts; the task browser's suspended filter)
  'task',
  'worker',
  'seq',
  'started',
  'ended',
  'result',
  'error_number',
  'error_message',
  'error_detail',
  'wake',
  'event',
  'match',
  'shown',
  'before',
  'suspended',
  // flows (sql/flows.ts, operators.ts RETRY_FLOW, the enqueue procedure's @flow_id, the task browser's flow filter)
  'flow_id',
  'node_count',
  'unfinished',
  // the code-object step (sql/code-objects.ts) and the code a worker records (sql/workers.ts REGISTER_WORKER)
  'hash',
  'schema_version',
  'keep',
  'retain_s',
  'code',
]);

/** Variables a statement uses without declaring them, that are not parameters the store passes. */
function unknownVariables(text: string, ast: Node): string[] {
  const withoutStrings = text.replace(/N?'(?:[^']|'')*'/g, "''").replace(/--[^\n]*/g, '');
  const used = new Set([...withoutStrings.matchAll(/(?<!@)@([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]!.toLowerCase()));
  const mine = declared(ast);
  for (const p of procedureParams(text)) mine.add(p);
  return [...used].filter((v) => !mine.has('@' + v) && !PARAMETERS.has(v)).sort();
}

function shapeProblems(name: string, ast: Node, tables: Map<string, Set<string>>): string[] {
  const problems: string[] = [];
  const vars = tableVariables(ast);
  walk(ast, (k, v) => {
    if (!isObj(v)) return;
    if (k === 'Output' && Array.isArray(v.select_items) && isObj(v.into_table)) {
      const target = nameOf(v.into_table.name);
      const n = vars.get(target);
      if (n === undefined) problems.push(`${name}: OUTPUT INTO ${target}, which this batch does not declare`);
      else if (n !== v.select_items.length)
        problems.push(`${name}: OUTPUT gives ${v.select_items.length} values to ${target} of ${n} columns`);
    }
    if (k === 'Insert' && isObj(v.table)) {
      const target = nameOf(v.table.TableName);
      const columns = (v.columns as Node[][]).map((c) => nameOf(c));
      const w = width(isObj(v.source) ? v.source.body : null);
      if (columns.length && w !== null && columns.length !== w)
        problems.push(`${name}: INSERT INTO ${target} names ${columns.length} columns for ${w} values`);
      if (!columns.length && target.startsWith('@') && w !== null && vars.get(target) !== w)
        problems.push(`${name}: INSERT INTO ${target} gives ${w} values for ${vars.get(target)} columns`);
      if (target.startsWith('readpast.')) {
        const known = tables.get(target);
        if (!known) problems.push(`${name}: INSERT INTO ${target}, a table no migration creates`);
        else for (const c of columns) if (!known.has(c)) problems.push(`${name}: ${target} has no column ${c}`);
      }
    }
  });
  return problems;
}

describe('T-SQL parse check', () => {
  beforeAll(async () => {
    await init();
  });

  const statements = allStatements();

  it('covers the store: constants, variants and migrations', () => {
    const names = statements.map((s) => s.name);
    for (const must of [
      'claim.CLAIM',
      'settle.FINISH',
      'workers.HEARTBEAT',
      'maintenance.RESCUE_EXPIRED',
      'operators.CANCEL',
      'session.SESSION_CLEANUP',
      'session.SESSION_TAG',
      'live.DESCRIBE_PROCEDURE',
      'reads.LIST_RUNNING_LIVE',
      'settle.SETTLE_BATCHES',
      'queues.SET_QUEUE',
      'schedules.DUE_SCHEDULES',
      'schedules.FIRE',
      'schedules.RUN_SCHEDULE',
      'migration 1 batch 1',
      'migrations.MIGRATE_ENSURE_SCHEMA',
      'live.killSql(1)',
      'callers.SET_SETTING',
      'callers.ASYNC_EXEC_RESULTS_VIEW',
      'wake.WAKE_POLL',
      'migration 21 batch 1',
      'code object ExecAsync',
      `code object ${hotBareName(HOT.claim)}`,
      'code-objects.CODE_DROP',
      'role batch 1',
      'hot.execText(Enqueue)',
      // durable handlers
      'migration 23 batch 1',
      'code object SendEvent',
      'steps.RECORD_STEP',
      'steps.WAKE_DUE',
      'steps.WAKE_ONE',
      'steps.LOAD_STEPS',
      'events.LIST_EVENTS',
    ]) {
      expect(names).toContain(must);
    }
    // per status (none and the seven): none, 14 flags alone, payload eq / contains, all; pending: 3 sub-states alone and with
    // all; waiting: suspended alone and with all
    expect(names.filter((n) => n.startsWith('reads.listTasksSql')).length).toBe(8 * 18 + 6 + 2);
    // per outcome (none and the seven, suspended among them): queue, batch, text, from, to, cursor alone and together
    expect(names.filter((n) => n.startsWith('reads.listAttemptsSql')).length).toBe(8 * 64);
    // every module of sql/ sends something (tally.ts, claim-steps.ts, edges.ts and enqueue-deps.ts only lend their
    // pieces to others; hot.ts's
    // procedures, enqueue.ts's statement among them, are migration 17's batches)
    const modules = MODULES.map(([m]) => m);
    expect(modules).toEqual(expect.arrayContaining(['claim', 'enqueue', 'live', 'reads', 'session', 'settle', 'tally']));
    for (const m of modules)
      if (!['tally', 'hot', 'enqueue', 'claim-steps', 'edges', 'enqueue-deps', 'caller-checks', 'chunks'].includes(m))
        expect(
          names.some((n) => n.startsWith(`${m}.`)),
          m,
        ).toBe(true);
    // each fragment still exists and is part of some statement
    for (const f of FRAGMENTS) {
      const [mod, key] = f.split('.') as [string, string];
      const text = MODULES.find(([m]) => m === mod)?.[1][key];
      expect(typeof text, f).toBe('string');
      expect(
        statements.some((s) => s.text.includes(text as string)),
        f,
      ).toBe(true);
    }
    // a floor, so that statements cannot drop out of the check unnoticed (raise it when adding)
    expect(statements.length).toBeGreaterThanOrEqual(750);
    expect(new Set(names).size).toBe(names.length);
    for (const s of statements) {
      expect(s.text, s.name).not.toMatch(/\$\{|undefined|\[object Object\]/);
      expect(s.text.trim().length, s.name).toBeGreaterThan(0);
    }
  });

  it('the parser is strict enough to matter', () => {
    expect(() => parses('SELECT TOP (1) id FROM readpast.Tasks WHERE status = ORDER BY id')).toThrow();
    expect(() => parses("UPDATE readpast.Tasks SET status = 'running' WHER id = 1")).toThrow();
    expect(() => parses('BEGIN TRANSACTION; SELECT 1 FROM')).toThrow();
  });

  it('every statement parses', () => {
    const failures: string[] = [];
    for (const s of statements) {
      try {
        parses(s.text);
      } catch (err) {
        failures.push(`${s.name}: ${(err as Error).message}`);
      }
      for (const inner of nested(s.text)) {
        if (inner in EXEMPT) continue;
        try {
          parses(inner);
        } catch (err) {
          failures.push(`${s.name} (inside EXEC): ${(err as Error).message}`);
        }
      }
    }
    expect(failures).toEqual([]);
  });

  it('OUTPUT INTO and INSERT give as many values as there are columns, name real columns, and use only known variables', () => {
    const parsed = statements.map((s) => ({ name: s.name, ast: parses(s.text) }));
    const tables = createdTables(parsed.map((p) => p.ast));
    expect([...tables.keys()]).toEqual(
      expect.arrayContaining(['readpast.tasks', 'readpast.executionlog', 'readpast.queuecounts', 'readpast.schemaversion']),
    );
    // columns a later migration adds (ALTER TABLE … ADD) count as the table's too
    expect(tables.get('readpast.queuecounts')).toContain('slot');
    expect(tables.get('readpast.metrics')).toContain('slot');
    const problems = parsed.flatMap((p) => shapeProblems(p.name, p.ast, tables));
    expect(problems).toEqual([]);
    const unknown = statements.flatMap((s, i) => unknownVariables(s.text, parsed[i]!.ast).map((v) => `${s.name}: @${v}`));
    expect(unknown).toEqual([]);
    expect(
      unknownVariables(
        'DECLARE @a int = 1; SELECT @a + @lane_servd, @@SPID',
        parses('DECLARE @a int = 1; SELECT @a + @lane_servd, @@SPID'),
      ),
    ).toEqual(['lane_servd']);
    // and the check itself notices a miscount and an unknown column
    const bad = parses(`DECLARE @m TABLE (id bigint NOT NULL, q int NOT NULL, PRIMARY KEY (id));
UPDATE t SET a = 1 OUTPUT inserted.id INTO @m FROM readpast.Tasks AS t;
INSERT INTO readpast.Tasks (id, colour) VALUES (1, 2);`);
    expect(shapeProblems('bad', bad, tables)).toEqual([
      'bad: OUTPUT gives 1 values to @m of 2 columns',
      'bad: readpast.tasks has no column colour',
    ]);
  });

  it('each exemption is still needed and still used', () => {
    const inners = new Set(statements.flatMap((s) => nested(s.text)));
    for (const text of Object.keys(EXEMPT)) {
      expect(inners.has(text), `exempted statement no longer sent: ${text}`).toBe(true);
      expect(() => parses(text), `the parser accepts it now; drop the exemption: ${text}`).toThrow();
    }
  });
});
