// runSql on SQLite: a text naming the parents parameter (@Parents, $Parents or :Parents) gets the parents'
// results bound as JSON text; a text that does not name it binds nothing; a multi-statement text cannot take it.
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { TaskError } from '../../lib/engine/errors';
import type { ParentResult } from '../../lib/engine/types';
import { runSql } from './run';

const parents: ParentResult[] = [
  { token: '01930000-0000-7000-8000-000000000001', nodeId: 'load', command: 'load', status: 'succeeded', result: { rows: 2 } },
];
const signal = new AbortController().signal;

describe('runSql and @Parents (SQLite)', () => {
  it('binds the parents as JSON text to each of the three prefixes, readable with json functions', () => {
    const db = new Database(':memory:');
    for (const p of ['@Parents', '$Parents', ':Parents']) {
      const r = runSql(db, `SELECT json_extract(${p}, '$[0].result.rows') AS n, ${p} AS raw`, signal, parents);
      expect(r.rows[0]!.n).toBe(2);
      expect(JSON.parse(String(r.rows[0]!.raw))).toEqual(parents);
    }
    // no parents: an empty array
    expect(runSql(db, 'SELECT @Parents AS raw', signal).rows).toEqual([{ raw: '[]' }]);
  });

  it('binds nothing to a text that does not name it, even in a comment', () => {
    const db = new Database(':memory:');
    expect(runSql(db, 'SELECT 1 AS one -- reads no @Parents', signal, parents).rows).toEqual([{ one: 1 }]);
    expect(runSql(db, 'SELECT 1 AS one', signal, parents).rows).toEqual([{ one: 1 }]);
  });

  it('refuses @Parents in a text of several statements, as a failure not worth retrying', () => {
    const db = new Database(':memory:');
    const err = (() => {
      try {
        runSql(db, 'CREATE TABLE t (p TEXT); INSERT INTO t VALUES (@Parents)', signal, parents);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(TaskError);
    expect((err as TaskError).retryable).toBe(false);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 't'").all()).toEqual([]);
  });
});
