// Code objects by content on SQLite: the view ExecutionStatus and the triggers that keep ConcurrencyKeys are
// not left to the migrations that first made them (frozen, schema.ts) but installed after the migrations:
// each object whose text in sqlite_master differs from this code's (or that is missing) is dropped and made
// again, in one write transaction; anything else is left alone, so a second run writes nothing. SQLite keeps
// every object's text in sqlite_master, so no catalog table is needed; and no statement of the store is
// installed (each process sends its own), so there is nothing to retire.
import { createHash } from 'node:crypto';
import type { DoctorCheck } from '../../lib/engine/types';
import { read, writeTx, type Db } from './connection';
import * as S from './sql/code-objects';

export interface SqliteCodeObject {
  type: 'view' | 'trigger';
  name: string;
  /** the CREATE statement, as sqlite_master keeps it (no semicolon) */
  sql: string;
}

export const CODE_OBJECTS: readonly SqliteCodeObject[] = [
  { type: 'view', name: 'ExecutionStatus', sql: S.EXECUTION_STATUS_VIEW },
  { type: 'trigger', name: 'Tasks_key_insert', sql: S.TASKS_KEY_INSERT_TRIGGER },
  { type: 'trigger', name: 'Tasks_key_pending', sql: S.TASKS_KEY_PENDING_TRIGGER },
];

export const codeHash = (sql: string) => createHash('sha256').update(sql).digest('hex');

/** The views and triggers the file holds: name → (type, text). */
export function installedCode(db: Db): Map<string, { type: string; sql: string | null }> {
  const rows = db.prepare(S.CODE_STATE).all() as { type: string; name: string; sql: string | null }[];
  return new Map(rows.map((r) => [r.name, { type: r.type, sql: r.sql }]));
}

/** Make every code object as this code defines it; returns the names installed (missing or changed). */
export async function installCode(db: Db): Promise<string[]> {
  // read once, first (an install is a write: only when something differs), with the store's busy retry
  const found = await read(() => installedCode(db));
  if (CODE_OBJECTS.every((o) => found.get(o.name)?.sql === o.sql)) return [];
  return writeTx(db, () => {
    const have = installedCode(db);
    const installed: string[] = [];
    for (const o of CODE_OBJECTS) {
      const found = have.get(o.name);
      if (found?.sql === o.sql) continue;
      // names are this code's own constants, never a value
      if (found) db.exec(`DROP ${found.type === 'view' ? 'VIEW' : 'TRIGGER'} ${o.name}`);
      db.exec(o.sql);
      installed.push(o.name);
    }
    return installed;
  });
}

/** `readpast doctor`: each view and trigger with the hash of its text, and whether it is as this code installs it. */
export function codeDoctorCheck(db: Db): DoctorCheck {
  const have = installedCode(db);
  const listed = CODE_OBJECTS.map((o) => {
    const found = have.get(o.name)?.sql;
    const state = found === undefined || found === null ? 'missing' : found === o.sql ? codeHash(o.sql).slice(0, 8) : 'differs';
    return `${o.name} (${o.type}, ${state})`;
  });
  const off = CODE_OBJECTS.filter((o) => have.get(o.name)?.sql !== o.sql);
  return {
    id: 'code',
    title: 'Installed views and triggers',
    ok: off.length === 0,
    detail: off.length
      ? `${off.map((o) => o.name).join(', ')} not as this readpast installs ${off.length > 1 ? 'them' : 'it'}: ${listed.join('; ')}`
      : `as this readpast installs them: ${listed.join('; ')}`,
    remedy: off.length ? 'readpast migrate (any readpast command that opens the file does it)' : null,
    needed: false,
  };
}
