// The statement cache every concern of the SQLite store prepares its SQL through: one prepared statement
// per connection and SQL text.
import type Database from 'better-sqlite3';

type Statement = Database.Statement<unknown[], unknown>;

const cache = new WeakMap<Database.Database, Map<string, Statement>>();

/** A prepared statement cached per connection, keyed by its text. */
export function stmt(db: Database.Database, sql: string): Statement {
  let m = cache.get(db);
  if (!m) cache.set(db, (m = new Map()));
  let s = m.get(sql);
  if (!s) m.set(sql, (s = db.prepare<unknown[], unknown>(sql)));
  return s;
}
