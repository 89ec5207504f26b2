// Multi-row INSERTs of many rows (tasks, edges): the largest chunks of INSERT_CHUNKS first.
import type { Db } from './connection';
import { INSERT_CHUNKS, insertTasks, TASK_COLUMNS } from './sql/enqueue';
import { stmt } from './stmt';

/**
 * INSERT the rows (their parameters one row after the other, `width` per row): the largest chunks first
 * (multi-row VALUES). Returns the new rows' ids, in order (a statement's rows take consecutive ids).
 */
export function insertRows(db: Db, params: unknown[], text = insertTasks, width = TASK_COLUMNS): number[] {
  const ids: number[] = [];
  let rows = params.length / width;
  let at = 0;
  for (const size of INSERT_CHUNKS) {
    if (rows < size) continue;
    const st = stmt(db, text(size));
    const chunk = size * width;
    while (rows >= size) {
      const last = Number(st.run(at === 0 && params.length === chunk ? params : params.slice(at, at + chunk)).lastInsertRowid);
      for (let id = last - size + 1; id <= last; id++) ids.push(id);
      at += chunk;
      rows -= size;
    }
  }
  return ids;
}
