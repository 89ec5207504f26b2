// readpast.Settings (migration 6): changed by the CLI only (`readpast migrate --allow-sql on|off`), read by
// the T-SQL callers' procedures (sql/callers.ts), never changed by them.
import { sql, type Shared } from './connection';
import { ALLOW_SQL_SETTING, SET_SETTING } from './sql/callers';

export async function setAllowSql(shared: Shared, allow: boolean, changedBy: string): Promise<void> {
  await shared.write(SET_SETTING, [
    ['name', sql.VarChar(64), ALLOW_SQL_SETTING],
    ['value', sql.NVarChar(400), allow ? 'on' : 'off'],
    ['by', sql.NVarChar(200), changedBy.slice(0, 200)],
  ]);
}
