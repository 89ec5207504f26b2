// The JSON the Batches pages read: batches with per-stage counts, one batch's tasks, its attempts.
import type { BatchJson } from '@/lib/api/present';
import type { PageJson, TaskJson } from '../api';

export type { BatchJson };
export type StageJson = BatchJson['stages'][number];
export type BatchPageJson = PageJson<BatchJson>;

export interface BatchDetailJson extends BatchJson {
  tasks: TaskJson[];
}

export interface TimelineAttemptJson {
  id: number;
  token: string;
  queue: string;
  command: string;
  stage: number | null;
  attempt: number;
  workerId: string | null;
  session: number | null;
  tokenNo: number | null;
  startedAt: string;
  endedAt: string | null;
  outcome: string;
}

export interface TimelineJson {
  attempts: TimelineAttemptJson[];
  truncated: boolean;
}

export const BATCH_STATUSES = ['open', 'released', 'completed', 'aborted', 'cancelled'] as const;

/** A batch still runs or takes tasks. */
export function isActive(b: Pick<BatchJson, 'status'>): boolean {
  return b.status === 'open' || b.status === 'released';
}
