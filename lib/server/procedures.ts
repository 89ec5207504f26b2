// Procedure tasks for the API and server actions: a procedure's parameter list for the enqueue
// form (SQL Server only), and an operator's KILL of the session running a task.
import { ConflictError, NotFoundError, ValidationError } from '@/lib/engine/errors';
import type { Store } from '@/lib/engine/store';
import type { ProcedureParameter } from '@/lib/engine/types';
import { PROCEDURE_NAME, parseWith, token as tokenSchema } from '@/lib/engine/validation';
import { HttpError } from './http';

export interface ProcedureParametersJson {
  procedure: string;
  parameters: ProcedureParameter[];
}

/** A procedure name from a URL path segment (decoded when it still is percent-encoded), validated as `name`. */
export function procedureNameParam(raw: string): string {
  let name = raw;
  if (name.includes('%')) {
    try {
      name = decodeURIComponent(name);
    } catch {
      // not valid percent-encoding: validated as is
    }
  }
  name = name.trim();
  if (!PROCEDURE_NAME.test(name)) throw new ValidationError('name', 'not a procedure name (name or schema.name, optionally in [brackets])');
  return name;
}

/**
 * `GET /api/procedures/{name}/parameters`: the parameters the enqueue form renders fields for.
 * 400 `kind` where the store cannot run procedures (SQLite), 400 `name` for a malformed name,
 * 404 when the database has no such procedure.
 */
export async function procedureParameters(
  store: Pick<Store, 'dialect' | 'describeProcedure'>,
  rawName: string,
): Promise<ProcedureParametersJson> {
  if (!store.describeProcedure) {
    throw new ValidationError('kind', `procedure tasks need SQL Server (this database is ${store.dialect === 'sqlite' ? 'SQLite' : store.dialect})`);
  }
  const name = procedureNameParam(rawName);
  const parameters = await store.describeProcedure(name);
  if (!parameters) throw new NotFoundError(`no procedure ${name} in this database (or this login may not see it)`);
  return { procedure: name, parameters };
}

/**
 * `POST /api/tasks/{token}/kill` and the `killTask` action: KILL the SQL Server session running a
 * sql or procedure task. 400 where the store cannot (SQLite) or the token is malformed, 404 for an
 * unknown task, 409 with the store's reason (not running, a handler task, no ALTER ANY CONNECTION…).
 */
export async function killTaskSession(store: Pick<Store, 'dialect' | 'killSession'>, rawToken: unknown): Promise<{ status: 'killed' }> {
  if (!store.killSession) {
    throw new HttpError(400, `KILL needs SQL Server (this database is ${store.dialect === 'sqlite' ? 'SQLite' : store.dialect}); use cancel instead`);
  }
  const token = parseWith(tokenSchema, rawToken, 'token').toLowerCase();
  const r = await store.killSession(token);
  if (r === 'not_found') throw new NotFoundError(`no task with token ${token}`);
  if (r === 'conflict') throw new ConflictError('the task is not running (it finished or was settled meanwhile)');
  return { status: r };
}
