// Procedure tasks for the API and server actions: a procedure's parameter list for the enqueue
// form (SQL Server only), and an operator's KILL of the session running a task.
import { decodeSegment } from './requests';
import { ConflictError, NotFoundError, ValidationError } from '../engine/errors';
import type { Dialect, SqlServerExtras, Store } from '../engine/ports';
import type { ProcedureParametersJson } from './present';
import { PROCEDURE_NAME, parseWith, token as tokenSchema } from '../engine/validation';

/** A procedure name from a URL path segment (decoded when it still is percent-encoded), validated as `name`. */
export function procedureNameParam(raw: string): string {
  let name = decodeSegment(raw);
  name = name.trim();
  if (!PROCEDURE_NAME.test(name)) throw new ValidationError('name', 'not a procedure name (name or schema.name, optionally in [brackets])');
  return name;
}

type WithExtras<K extends keyof SqlServerExtras> = Pick<Store, 'dialect'> & { sqlServer: Pick<SqlServerExtras, K> | null };

const DIALECT_NAMES: Readonly<Record<Dialect, string>> = { sqlite: 'SQLite', mssql: 'SQL Server' };
const dialectName = (d: Dialect) => DIALECT_NAMES[d];

/**
 * `GET /api/procedures/{name}/parameters`: the parameters the enqueue form renders fields for.
 * 400 `kind` where the store cannot run procedures (SQLite), 400 `name` for a malformed name,
 * 404 when the database has no such procedure.
 */
export async function procedureParameters(store: WithExtras<'describeProcedure'>, rawName: string): Promise<ProcedureParametersJson> {
  if (!store.sqlServer)
    throw new ValidationError('kind', `procedure tasks need SQL Server (this database is ${dialectName(store.dialect)})`);
  const name = procedureNameParam(rawName);
  const parameters = await store.sqlServer.describeProcedure(name);
  if (!parameters) throw new NotFoundError(`no procedure ${name} in this database (or this login may not see it)`);
  return { procedure: name, parameters };
}

/**
 * `POST /api/tasks/{token}/kill` and the `killTask` action: KILL the SQL Server session running a
 * sql or procedure task. 400 where the store cannot (SQLite) or the token is malformed, 404 for an
 * unknown task, 409 with the store's reason (not running, a handler task, no ALTER ANY CONNECTION…).
 */
export async function killTaskSession(store: WithExtras<'killSession'>, rawToken: unknown): Promise<{ status: 'killed' }> {
  if (!store.sqlServer) {
    throw new ValidationError('kind', `KILL needs SQL Server (this database is ${dialectName(store.dialect)}); use cancel instead`);
  }
  const token = parseWith(tokenSchema, rawToken, 'token').toLowerCase();
  const r = await store.sqlServer.killSession(token);
  if (r === 'not_found') throw new NotFoundError(`no task with token ${token}`);
  if (r === 'conflict') throw new ConflictError('the task is not running (it finished or was settled meanwhile)');
  return { status: r };
}
