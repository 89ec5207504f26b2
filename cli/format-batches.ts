// Human-readable forms of `batch status` and `batch wait` (--json prints batchJson / {done, batch, tasks}).
import type { BatchJson, taskJson } from '../lib/api/present';
import { table } from './format';

type TaskJson = ReturnType<typeof taskJson>;

function compact(v: unknown, max = 100): string {
  const text = JSON.stringify(v) ?? 'null';
  return text.length > max ? text.slice(0, max - 1) + '…' : text;
}

export function formatBatch(b: BatchJson): string {
  const t = b.totals;
  const head = table([
    ['batch:', String(b.id)],
    ['status:', b.status],
    ['active stage:', b.activeStage === null ? '-' : String(b.activeStage)],
    ['max parallel:', b.maxParallel === null ? 'no cap' : String(b.maxParallel)],
    ['on failure:', b.onFailure],
    ['caller:', b.caller ?? '-'],
    ['created:', b.createdAt ?? '-'],
    ['released:', b.releasedAt ?? '-'],
    ['completed:', b.completedAt ?? '-'],
    [
      'tasks:',
      `${t.total} (${t.pending} pending, ${t.running} running, ${t.succeeded} succeeded, ${t.dead} dead, ${t.cancelled} cancelled)`,
    ],
  ]);
  if (b.stages.length === 0) return head + '\n\nstages: none yet';
  const rows = [['STAGE', 'TOTAL', 'PENDING', 'RUNNING', 'SUCCEEDED', 'DEAD', 'CANCELLED', 'FIRST STARTED', 'LAST ENDED']];
  for (const s of b.stages) {
    rows.push([
      String(s.stage) + (s.stage === b.activeStage ? '*' : ''),
      String(s.total),
      String(s.pending),
      String(s.running),
      String(s.succeeded),
      String(s.dead),
      String(s.cancelled),
      s.firstStartedAt ?? '-',
      s.lastEndedAt ?? '-',
    ]);
  }
  return head + '\n\n' + table(rows) + (b.activeStage === null ? '' : '\n(* active stage)');
}

/** The outcome of `batch wait`: what was waited for, then each task with its status and result or error. */
export function formatWaited(b: BatchJson, tasks: TaskJson[], stage: number | undefined): string {
  const count = (s: string) => tasks.filter((t) => t.status === s).length;
  const what = stage === undefined ? `batch ${b.id} (${b.status})` : `batch ${b.id} stage ${stage}`;
  const head =
    `${what}: done — ${tasks.length} task(s): ${count('succeeded')} succeeded, ${count('dead')} dead, ` + `${count('cancelled')} cancelled`;
  if (tasks.length === 0) return head;
  const rows = [['TOKEN', 'STAGE', 'STATUS', 'ATTEMPTS', 'COMMAND', 'RESULT / LAST ERROR']];
  for (const t of tasks) {
    const outcome = t.status === 'succeeded' ? compact(t.result) : t.lastError ? t.lastError.message : '-';
    rows.push([t.token, t.stage === null ? '-' : String(t.stage), t.status, `${t.attempts}/${t.maxAttempts}`, t.command, outcome]);
  }
  return head + '\n' + table(rows);
}
