// Reading a T-SQL batch for what each of its statements writes and what bounds the rows it writes (for
// chunks.test.ts): lock escalation is decided per statement and per table (sql/chunks.ts), so a statement that may
// write 5,000 rows of one table must not exist. A write is bounded when it takes TOP (n ≤ ESCALATION_CHUNK) rows, a
// chunk of a numbered set (`… <= @counter + ESCALATION_CHUNK`, the counter advanced by a loop after it), or one row by
// its key; what is left is for the test to argue or refuse. Text only: comments and strings are blanked first, then
// the batch is cut at its semicolons (every statement of the store ends with one).
import { ESCALATION_CHUNK } from '../sql/chunks';

export interface Write {
  /** the table written, `readpast.X` as it is named */
  table: string;
  /** the statement, from its first keyword (a CTE's WITH included) to its semicolon */
  text: string;
  /** what bounds it: TOP (n), a chunk of a numbered set, one row by key; null: nothing found */
  bound: 'top' | 'chunk' | 'key' | null;
  /** where it starts in the batch */
  at: number;
}

/** The batch with comments and string literals blanked (same length, so positions hold). */
function blank(text: string): string {
  return text
    .replace(/--[^\n]*/g, (m) => ' '.repeat(m.length))
    .replace(/N?'(?:[^']|'')*'/g, (m) => `'${' '.repeat(Math.max(0, m.length - 2))}'`);
}

/** Statements at paren depth 0 cut at their semicolons: [start, end) each. */
function statements(text: string): [number, number][] {
  const out: [number, number][] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ';' && depth === 0) {
      out.push([start, i + 1]);
      start = i + 1;
    }
  }
  return out;
}

/** The first write keyword of a statement at paren depth 0 (a CTE's WITH before it), or -1. */
function writeStart(s: string): number {
  let depth = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (depth === 0 && /\w/.test(c!) && (i === 0 || !/[\w@.]/.test(s[i - 1]!))) {
      const rest = s.slice(i);
      const cte = /^WITH\s+\w+\s+AS\s*\(/i.exec(rest);
      if (cte) return i;
      if (/^(INSERT\s+INTO|UPDATE|DELETE|MERGE)\b/i.test(rest)) return i;
    }
  }
  return -1;
}

/** The base table a statement writes: directly, through an alias of its FROM, or through a CTE's FROM. */
function targetOf(s: string): string | null {
  const direct =
    /^(?:WITH\s+\w+\s+AS\s*\([\s\S]*?\)\s*)?(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM|DELETE|MERGE(?:\s+INTO)?)\s+([\w.@#]+)/i.exec(s);
  const name = direct?.[1];
  if (!name) return null;
  if (name.startsWith('@') || name.startsWith('#')) return name;
  if (/^readpast\./i.test(name)) return name;
  // an alias (UPDATE t … FROM readpast.Tasks AS t) or a CTE (WITH doomed AS (… FROM readpast.Tasks AS t …) DELETE FROM doomed)
  const alias = new RegExp(`(readpast\\.\\w+|@\\w+)\\s+AS\\s+${name}\\b`, 'i').exec(s);
  if (alias) return alias[1]!;
  const cte = new RegExp(`WITH\\s+${name}\\s+AS\\s*\\(([\\s\\S]*?)\\)\\s*(?:UPDATE|DELETE)`, 'i').exec(s);
  const from = cte ? /FROM\s+(readpast\.\w+|@\w+)/i.exec(cte[1]!) : null;
  return from?.[1] ?? name;
}

/** What bounds a write statement (`after`: the batch after it, where a chunk's loop advances its counter). */
function boundOf(s: string, after: string): Write['bound'] {
  for (const m of s.matchAll(/\bTOP\s*\(\s*(\d+)\s*\)/gi)) if (Number(m[1]) <= ESCALATION_CHUNK) return 'top';
  const chunk = new RegExp(`<=?\\s*(@\\w+)\\s*\\+\\s*${ESCALATION_CHUNK}\\b`).exec(s);
  if (chunk) {
    const counter = chunk[1]!;
    const advance = new RegExp(`SET\\s+${counter}\\s*=\\s*${counter}\\s*\\+\\s*${ESCALATION_CHUNK}\\b`, 'i');
    if (advance.test(after)) return 'chunk';
  }
  // one row by its key: a task by id or token, a queue or schedule by name, a worker by id
  if (/\bWHERE\s+(?:\w+\.)?(?:id|token|name|worker_id)\s*=\s*(?:@\w+|\(SELECT\b)/i.test(s)) return 'key';
  return null;
}

/** Every write of a batch to a table of readpast (table variables left out), with what bounds it. */
export function writesOf(batch: string): Write[] {
  const text = blank(batch);
  const out: Write[] = [];
  for (const [a, b] of statements(text)) {
    const seg = text.slice(a, b);
    const w = writeStart(seg);
    if (w < 0) continue;
    const s = seg.slice(w);
    const table = targetOf(s);
    if (!table || !/^readpast\./i.test(table)) continue;
    out.push({ table, text: batch.slice(a + w, b), bound: boundOf(s, text.slice(b)), at: a + w });
  }
  return out;
}
