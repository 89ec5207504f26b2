// `GO` is not T-SQL: sqlcmd and SSMS split a script into batches on a line holding only `GO`
// (optionally `GO n` to repeat, and a trailing `--` comment). A `sql` task may be such a script,
// so it is split here, outside strings, quoted identifiers and comments, and each batch is sent
// on its own.

const GO_LINE = /^[ \t]*go(?:[ \t]+(\d+))?[ \t]*(?:--.*)?$/i;

export const MAX_GO_REPEAT = 1000;

/** The batches of a script, in order (a `GO n` batch appears n times). Empty batches are dropped. */
export function splitBatches(script: string): string[] {
  const out: string[] = [];
  let current = '';
  let state: 'code' | 'string' | 'bracket' | 'dquote' | 'block' = 'code';
  let depth = 0; // nested /* */ comments
  const lines = script.split(/(?<=\n)/);
  for (const raw of lines) {
    const line = raw.replace(/\r?\n$/, '');
    if (state === 'code') {
      const m = GO_LINE.exec(line);
      if (m) {
        const times = m[1] === undefined ? 1 : Number(m[1]);
        if (times < 1 || times > MAX_GO_REPEAT) throw new Error(`GO ${m[1]}: the count must be from 1 to ${MAX_GO_REPEAT}`);
        if (current.trim()) for (let i = 0; i < times; i++) out.push(current);
        current = '';
        continue;
      }
    }
    // scan the line to know the state at its end
    for (let i = 0; i < line.length; i++) {
      const c = line[i]!;
      const next = line[i + 1];
      switch (state) {
        case 'code':
          if (c === "'") state = 'string';
          else if (c === '[') state = 'bracket';
          else if (c === '"') state = 'dquote';
          else if (c === '-' && next === '-')
            i = line.length; // rest of line is a comment
          else if (c === '/' && next === '*') {
            state = 'block';
            depth = 1;
            i++;
          }
          break;
        case 'string':
          if (c === "'") {
            if (next === "'") i++;
            else state = 'code';
          }
          break;
        case 'bracket':
          if (c === ']') {
            if (next === ']') i++;
            else state = 'code';
          }
          break;
        case 'dquote':
          if (c === '"') {
            if (next === '"') i++;
            else state = 'code';
          }
          break;
        case 'block':
          if (c === '/' && next === '*') {
            depth++;
            i++;
          } else if (c === '*' && next === '/') {
            depth--;
            i++;
            if (depth === 0) state = 'code';
          }
          break;
      }
    }
    current += raw;
  }
  if (current.trim()) out.push(current);
  return out;
}
