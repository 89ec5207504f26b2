// The mssql (tedious) driver, loaded the same way under Node ESM, tsx, vitest and Next.js: the
// package is CommonJS whose named exports Node cannot detect, so take its default export when
// there is one.
import * as ns from 'mssql';

type Mssql = typeof ns;
const mod = ns as Mssql & { default?: Mssql };

export const sql: Mssql = mod.default ?? mod;

export type {
  ConnectionPool, IProcedureResult, IRecordSet, IResult, ISqlType, Request, config as MssqlConfig,
} from 'mssql';

/** A typed parameter: name (without @), SQL type, value. */
export type Param = readonly [name: string, type: ns.ISqlType | (() => ns.ISqlType), value: unknown];

/** A request with its own timeout (ms; 0 = none), which the driver supports but the typings omit. */
export function requestWithTimeout(pool: ns.ConnectionPool, requestTimeout: number): ns.Request {
  const Ctor = sql.Request as unknown as new (p: ns.ConnectionPool, o: { requestTimeout: number }) => ns.Request;
  return new Ctor(pool, { requestTimeout });
}

/** Run a parameterised statement (sp_executesql) on a pool. */
export async function query<T = Record<string, unknown>>(
  pool: ns.ConnectionPool,
  text: string,
  params: readonly Param[] = [],
  requestTimeout?: number,
): Promise<ns.IResult<T>> {
  const req = requestTimeout === undefined ? pool.request() : requestWithTimeout(pool, requestTimeout);
  for (const [name, type, value] of params) req.input(name, type, value);
  return req.query<T>(text);
}
