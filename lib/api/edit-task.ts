// Editing a task before a retry — the front door's part: the patch validated as enqueue validates the task
// it would make, the store's edit (and its retry) in one transaction with their audit rows.
import { z } from 'zod';
import { ConflictError, NotFoundError } from '../engine/errors';
import { MAX_ATTEMPTS, MAX_PRIORITY, MIN_ATTEMPTS, MIN_PRIORITY } from '../engine/limits';
import type { Store } from '../engine/ports';
import type { EditTaskResult, TaskPatch } from '../engine/types';
import { intIn, parseWith, queueName, validateEnqueue } from '../engine/validation';
import type { Audit } from './audit';
import { taskJson } from './present';

/** `PATCH /api/tasks/{token}`: what to change; `retry` also puts a dead or cancelled task back to pending. */
export const taskPatchRequest = z
  .strictObject({
    payload: z.unknown().optional(),
    queue: queueName.optional(),
    priority: intIn(MIN_PRIORITY, MAX_PRIORITY).optional(),
    runAt: z.union([z.iso.datetime({ offset: true }), z.date()]).optional(),
    maxAttempts: intIn(MIN_ATTEMPTS, MAX_ATTEMPTS).optional(),
    retry: z.boolean().optional(),
  })
  .refine((p) => Object.keys(p).some((k) => k !== 'retry') || p.retry === true, { message: 'give something to change' });

export type TaskPatchRequest = z.input<typeof taskPatchRequest>;

const EDITED = ['queue', 'payload', 'priority', 'runAfter', 'maxAttempts', 'status'] as const;
const pick = (t: ReturnType<typeof taskJson>) => Object.fromEntries(EDITED.map((k) => [k, t[k]]));

/** Edit a task that is not running (validated as enqueue validates); the old and new values are audited. */
export async function editTask(store: Store, audit: Audit, token: string, raw: unknown) {
  const p = parseWith(taskPatchRequest, raw);
  const current = await store.reads.getTask(token);
  if (!current) throw new NotFoundError(`no task with token ${token}`);
  // the same checks as at enqueue, on the task as it would be (its command is not changed)
  const v = await validateEnqueue(
    {
      kind: current.kind,
      command: current.command,
      payload: p.payload === undefined ? (current.payload ?? undefined) : p.payload,
      queue: p.queue ?? current.queue,
      priority: p.priority ?? current.priority,
      maxAttempts: p.maxAttempts ?? current.maxAttempts,
      ...(p.runAt !== undefined ? { runAt: p.runAt } : {}),
    },
    { kinds: store.kinds, knowsHandler: () => true },
  );
  const patch: TaskPatch = {};
  if (p.payload !== undefined) patch.payload = v.payload;
  if (p.queue !== undefined) patch.queue = v.queue;
  if (p.priority !== undefined) patch.priority = v.priority;
  if (p.maxAttempts !== undefined) patch.maxAttempts = v.maxAttempts;
  if (p.runAt !== undefined) patch.runAt = v.runAt;
  // the edit and, when it put the task back, its retry: both rows written in the edit's transaction
  const r = await store.commands.editTask(
    token,
    patch,
    p.retry === true,
    audit.of((e: EditTaskResult) => {
      if (!('after' in e)) return null;
      const edit = { action: 'task.edit', target: token, before: pick(taskJson(e.before)), after: pick(taskJson(e.after)), count: 1 };
      return e.result === 'retried' ? [edit, { action: 'task.retry', target: token, count: 1 }] : edit;
    }),
  );
  if (r.result === 'not_found') throw new NotFoundError(`no task with token ${token}`);
  if (r.result === 'running') throw new ConflictError('the task is running; edit it once it has stopped');
  if (r.result === 'conflict') {
    throw new ConflictError(
      p.retry
        ? 'this task cannot be retried now (finished, in a finished or aborted batch, or its dedup key is taken)'
        : 'finished tasks cannot be edited',
    );
  }
  if (!('after' in r)) throw new ConflictError('the task changed meanwhile');
  return { result: r.result, task: taskJson(r.after) };
}
