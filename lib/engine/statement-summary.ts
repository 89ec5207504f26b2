// A bounded, parameter-free summary of a SQL text for a database span (OpenTelemetry's db.query.summary): the
// operations and the objects they name, in order — `UPDATE dbo.Orders SELECT dbo.Orders dbo.Lines` — never a literal,
// a number, a variable or a parameter. Comments and string literals are dropped before anything is read.

/** db.query.summary is at most this long (cut at a word). */
export const MAX_SUMMARY = 255;

const OPERATIONS = new Set([
  'SELECT',
  'INSERT',
  'UPDATE',
  'DELETE',
  'MERGE',
  'EXEC',
  'EXECUTE',
  'CREATE',
  'ALTER',
  'DROP',
  'TRUNCATE',
  'CALL',
  'REPLACE',
  'UPSERT',
  'VACUUM',
  'PRAGMA',
]);
/** words after which an object's name comes */
const TARGET_BEFORE = new Set([
  'FROM',
  'INTO',
  'UPDATE',
  'JOIN',
  'TABLE',
  'EXEC',
  'EXECUTE',
  'MERGE',
  'USING',
  'PROCEDURE',
  'VIEW',
  'INDEX',
]);
/** words that are never an object's name */
const NOT_A_NAME = new Set([...OPERATIONS, 'INTO', 'TABLE', 'TOP', 'DISTINCT', 'ONLY', 'OR', 'IF', 'NOT', 'EXISTS', 'AS', 'WITH', 'SET']);

/** One part of a name: bracketed, quoted, back-quoted, or a word (a variable's or temp table's prefix allowed first). */
const QUOTED = '\\[[^\\]]*\\]|"[^"]*"|`[^`]*`';
const NAME = `(?:${QUOTED}|[@#$A-Za-z_][\\w@#$]*)`;
const PART = `(?:${QUOTED}|[A-Za-z_#][\\w@#$]*)`;

/** Words, names (quoted or bracketed parts joined by dots) and single symbols, with comments and strings gone. */
function tokens(text: string): string[] {
  const out: string[] = [];
  const comment = "--[^\\n]*|/\\*[\\s\\S]*?(?:\\*/|$)|N?'(?:[^']|'')*(?:'|$)";
  const re = new RegExp(`${comment}|${NAME}(?:\\s*\\.\\s*${PART})*|\\d[\\w.]*|[^\\s\\w]`, 'g');
  for (const m of text.matchAll(re)) {
    const t = m[0];
    if (t.startsWith('--') || t.startsWith('/*') || t.startsWith("'") || t.startsWith("N'") || /^\d/.test(t)) continue;
    out.push(t);
  }
  return out;
}

const unquote = (name: string) =>
  name
    .split(/\s*\.\s*/)
    .map((p) => p.replace(/^[[\]"`]|[[\]"`]$/g, ''))
    .join('.');

/** `text` → its summary (empty when it names no operation), at most `max` characters. */
export function statementSummary(text: string, max = MAX_SUMMARY): string {
  const parts: string[] = [];
  let expectTarget = false;
  for (const t of tokens(text)) {
    const word = /^[A-Za-z_]\w*$/.test(t) ? t.toUpperCase() : null;
    if (expectTarget) {
      const isName = !t.startsWith('@') && !t.startsWith('$') && (word === null ? /^[[\]"`#A-Za-z_]/.test(t) : !NOT_A_NAME.has(word));
      if (isName) {
        parts.push(unquote(t));
        expectTarget = false;
        continue;
      }
      // `DELETE FROM x`, `INSERT INTO x`, `DROP TABLE x`, `UPDATE TOP (n) x`: the name may come a few words later
      if (word === null || !NOT_A_NAME.has(word)) expectTarget = t === '(' || t === ')' ? expectTarget : false;
    }
    if (word && OPERATIONS.has(word)) parts.push(word === 'EXECUTE' ? 'EXEC' : word);
    if (word && TARGET_BEFORE.has(word)) expectTarget = true;
  }
  let out = '';
  for (const p of parts) {
    if (out.endsWith(` ${p}`) || out === p) continue;
    const next = out ? `${out} ${p}` : p;
    if (next.length > max) break;
    out = next;
  }
  return out;
}
