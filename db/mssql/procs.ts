// The procedure catalog: a `procedure` task's name is looked up in sys.procedures (resolved and
// quoted by the server: QUOTENAME), its parameters typed from sys.parameters. Kept briefly so a
// bulk enqueue does not ask once per task.
import { ValidationError } from '../../lib/engine/errors';
import type { ProcedureParameter } from '../../lib/engine/types';
import { query, sql, type ConnectionPool } from './connection';
import { buildCall, parameterFromRow, type ParameterRow, type ProcedureCall } from './params';
import { DESCRIBE_PROCEDURE } from './sql/live';

export interface ProcedureInfo {
  /** `[schema].[name]`, as the server quoted it */
  quotedName: string;
  canExecute: boolean;
  params: ProcedureParameter[];
}

const TTL_MS = 10_000;

export class ProcedureCatalog {
  private cache = new Map<string, { at: number; value: ProcedureInfo | null }>();

  constructor(private readonly pool: () => Promise<ConnectionPool>) {}

  /** The procedure a name refers to, or null when there is none (or this login cannot see it). */
  async describe(name: string, fresh = false): Promise<ProcedureInfo | null> {
    const hit = this.cache.get(name);
    if (!fresh && hit && Date.now() - hit.at < TTL_MS) return hit.value;
    const r = await query(await this.pool(), DESCRIBE_PROCEDURE, [['name', sql.NVarChar(776), name]]);
    const sets = r.recordsets as unknown as [{ quoted_name: string; can_execute: number | null }[], ParameterRow[]];
    const proc = sets[0]?.[0];
    const value = proc
      ? { quotedName: proc.quoted_name, canExecute: proc.can_execute === 1, params: (sets[1] ?? []).map(parameterFromRow) }
      : null;
    if (this.cache.size > 500) this.cache.clear();
    this.cache.set(name, { at: Date.now(), value });
    return value;
  }

  /**
   * Check a procedure task before it is stored: the procedure exists, this login may execute it,
   * and every value converts to its parameter's type. Throws ValidationError naming the field.
   */
  async validate(name: string, payload: unknown, prefix = ''): Promise<{ info: ProcedureInfo; call: ProcedureCall }> {
    const f = (field: string) => (prefix ? `${prefix}.${field}` : field);
    const info = await this.describe(name);
    if (!info) throw new ValidationError(f('command'), `no stored procedure named ${JSON.stringify(name.slice(0, 300))} in this database`);
    if (!info.canExecute) throw new ValidationError(f('command'), `this login may not EXECUTE ${info.quotedName}`);
    return { info, call: buildCall(info.params, payload, f('payload')) };
  }
}
