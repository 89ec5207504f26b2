// Every T-SQL statement the SQL Server store can send, in one place. The store imports its SQL
// from here; the parse check (tsql-parse.test.ts) walks `allStatements()`.
import { MIGRATIONS } from './schema';
import * as batches from './sql-batches';
import * as claim from './sql-claim';
import * as ops from './sql-ops';
import * as queues from './sql-queues';
import * as read from './sql-read';
import * as session from './sql-session';
import * as write from './sql-write';

export * from './sql-batches';
export * from './sql-claim';
export * from './sql-ops';
export * from './sql-queues';
export * from './sql-read';
export * from './sql-session';
export * from './sql-write';
export { MIGRATIONS, SCHEMA_VERSION } from './schema';

export interface NamedStatement {
  name: string;
  text: string;
}

const constants = (prefix: string, mod: Record<string, unknown>): NamedStatement[] =>
  Object.entries(mod)
    .filter(([k, v]) => typeof v === 'string' && /^[A-Z][A-Z0-9_]*$/.test(k) && !['TASK_COLUMNS', 'LOG_COLUMNS', 'QUEUE_COLUMNS', 'STATUS_COLUMNS', 'QUEUE_VIEW_COLUMNS', 'APPLOCK_RESOURCE'].includes(k))
    .map(([k, v]) => ({ name: `${prefix}.${k}`, text: v as string }));

/** All statements, including every variant of the assembled ones and every migration batch. */
export function allStatements(): NamedStatement[] {
  const out: NamedStatement[] = [
    ...constants('write', write),
    ...constants('claim', claim),
    ...constants('queues', queues),
    ...constants('batches', batches),
    ...constants('ops', ops),
    ...constants('read', read),
    ...constants('session', session),
  ];
  for (const shape of ops.FAILURE_SHAPES) {
    const key = JSON.stringify(shape);
    out.push({ name: `ops.retryFailedSql ${key}`, text: ops.retryFailedSql(shape) });
    out.push({ name: `ops.deleteFailedSql ${key}`, text: ops.deleteFailedSql(shape) });
    out.push({ name: `read.failureGroupsSql ${key}`, text: read.failureGroupsSql(shape) });
  }
  const shapes = read.allListShapes();
  for (const s of shapes.tasks) out.push({ name: `read.listTasksSql ${JSON.stringify(s)}`, text: read.listTasksSql(s) });
  for (const s of shapes.attempts) out.push({ name: `read.listAttemptsSql ${JSON.stringify(s)}`, text: read.listAttemptsSql(s) });
  for (const s of batches.BATCH_LIST_SHAPES) out.push({ name: `batches.listBatchesSql ${JSON.stringify(s)}`, text: batches.listBatchesSql(s) });
  out.push({ name: 'session.killSql(1)', text: session.killSql(1) });
  out.push({ name: 'session.killSql(32767)', text: session.killSql(32767) });
  for (const m of MIGRATIONS) {
    m.batches.forEach((text, i) => out.push({ name: `migration ${m.version} batch ${i + 1}`, text }));
  }
  return out;
}
