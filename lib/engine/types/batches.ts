// Batches and stages (the seeds' scheduler handles).

export type BatchStatus = 'open' | 'released' | 'completed' | 'aborted' | 'cancelled';

export type OnFailure = 'continue' | 'abort';

export interface BatchInput {
  caller?: string | null;
  /** at most this many of the batch's tasks run at once (null = no cap) */
  maxParallel?: number | null;
  onFailure?: OnFailure;
}

export interface StageCounts {
  stage: number;
  total: number;
  pending: number;
  running: number;
  succeeded: number;
  dead: number;
  cancelled: number;
  firstStartedAt: Date | null;
  lastEndedAt: Date | null;
}

export interface BatchView {
  id: number;
  caller: string | null;
  maxParallel: number | null;
  onFailure: OnFailure;
  status: BatchStatus;
  /** the lowest stage with unfinished tasks (null when none) */
  activeStage: number | null;
  createdAt: Date;
  releasedAt: Date | null;
  completedAt: Date | null;
  stages: StageCounts[];
}
