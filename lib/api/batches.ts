// Batches for the API and server actions: a batch with its first tasks, the timeline of its
// attempts, and adding tasks to it from a request body.
import type { EnqueueOptions, Readpast } from './readpast';
import { ValidationError } from '../engine/errors';
import { taskJson } from './present';
import type { AttemptView, TaskView } from '../engine/types';
import { parseWith } from '../engine/validation';
import { batchIdSegment, batchTasksBody } from './requests';
import { readModelOf } from './readpast';

/** tasks listed with a batch */
export const BATCH_TASKS_LISTED = 500;
/** attempts drawn in a batch's timeline */
export const TIMELINE_MAX_ATTEMPTS = 5_000;

const PAGE = 500;

/** A batch id from a URL path segment, validated as `id`. */
export function batchIdParam(raw: string): number {
  return parseWith(batchIdSegment, raw, 'id');
}

/** The batch's tasks ordered by stage, then by id (enqueue order), at most `max`. */
export async function firstTasks(readpast: Readpast, id: number, stages: number[], max = BATCH_TASKS_LISTED): Promise<TaskView[]> {
  const out: TaskView[] = [];
  for (const stage of [...stages].sort((a, b) => a - b)) {
    const room = max - out.length;
    if (room <= 0) break;
    // pages come newest first; the stage's first tasks are on its last page
    const ofStage: TaskView[] = [];
    let cursor: number | undefined;
    do {
      const page = await readModelOf(readpast).listTasks({ batchId: id, stage, cursor, limit: PAGE });
      ofStage.push(...page.items);
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
    ofStage.sort((a, b) => a.id - b.id);
    out.push(...ofStage.slice(0, room));
  }
  return out;
}

/** `GET /api/batches/{id}`: the batch (with per-stage counts) and its first tasks by stage then id. */
export async function batchDetail(readpast: Readpast, id: number) {
  const batch = await readpast.batch(id);
  const tasks = await firstTasks(
    readpast,
    id,
    batch.stages.map((s) => s.stage),
  );
  return { ...batch, tasks: tasks.map(taskJson) };
}

function timelineEntry(a: AttemptView) {
  return {
    id: a.id,
    token: a.token,
    queue: a.queue,
    command: a.command,
    stage: a.stage,
    attempt: a.attempt,
    workerId: a.workerId,
    session: a.session,
    tokenNo: a.tokenNo,
    startedAt: a.startedAt.toISOString(),
    endedAt: a.endedAt ? a.endedAt.toISOString() : null,
    outcome: a.outcome,
  };
}

/** `GET /api/batches/{id}/timeline`: the batch's attempts from ExecutionLog, oldest first, at most TIMELINE_MAX_ATTEMPTS. */
export async function batchTimeline(readpast: Readpast, id: number) {
  await readpast.batch(id); // 404 for an unknown batch
  const attempts: AttemptView[] = [];
  let cursor: number | undefined;
  let truncated = false;
  for (;;) {
    const room = TIMELINE_MAX_ATTEMPTS - attempts.length;
    const page = await readModelOf(readpast).listAttempts({ batchId: id, cursor, limit: Math.min(PAGE, room) });
    attempts.push(...page.items);
    cursor = page.nextCursor ?? undefined;
    if (cursor === undefined) break;
    if (attempts.length >= TIMELINE_MAX_ATTEMPTS) {
      truncated = true;
      break;
    }
  }
  // newest first from the log; the chart reads left to right
  attempts.sort((a, b) => a.startedAt.getTime() - b.startedAt.getTime() || a.id - b.id);
  return { attempts: attempts.map(timelineEntry), truncated };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** One task request aimed at batch `id`: its batchId is the path's; `stage` applies when it names none. */
function intoBatch(raw: unknown, id: number, stage: number | undefined, prefix: string): unknown {
  if (!isRecord(raw)) return raw; // the enqueue validation names what is wrong with it
  if (raw.batchId !== undefined && raw.batchId !== id) {
    throw new ValidationError(prefix ? `${prefix}.batchId` : 'batchId', `must be ${id} (the batch in the path) or left out`);
  }
  return { ...raw, batchId: id, ...(raw.stage === undefined && stage !== undefined ? { stage } : {}) };
}

/**
 * `POST /api/batches/{id}/tasks`: the body is one enqueue request, or `{ tasks: [...], stage? }`.
 * 404 for an unknown batch, 409 once it is released; returns the tokens in request order.
 */
export async function addBatchTasks(readpast: Readpast, id: number, body: unknown, opts: EnqueueOptions): Promise<{ tokens: string[] }> {
  await readpast.batch(id);
  if (isRecord(body) && 'tasks' in body) {
    const { tasks, stage } = parseWith(batchTasksBody, body);
    const raws = tasks.map((t, i) => intoBatch(t, id, stage, `tasks.${i}`));
    const results = await readpast.enqueueMany(raws, opts);
    return { tokens: results.map((r) => r.token) };
  }
  const r = await readpast.enqueue(intoBatch(body, id, undefined, ''), opts);
  return { tokens: [r.token] };
}
