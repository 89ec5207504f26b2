// The JSON the Queues page reads: queues with their limits, token grants and recorded changes.
import type { queueChangeJson, queueJson, tokenJson } from '@/lib/api/present';

export type QueueJson = ReturnType<typeof queueJson>;
export type TokenJson = ReturnType<typeof tokenJson>;
export type QueueChangeJson = ReturnType<typeof queueChangeJson>;

export interface QueuesJson {
  queues: QueueJson[];
  changes: QueueChangeJson[];
}

export interface TokensJson {
  tokens: TokenJson[];
}

export interface ChangesJson {
  changes: QueueChangeJson[];
}

/** "unlimited" or the number, as changes record it. */
export function limitText(limit: number | null): string {
  return limit === null ? 'unlimited' : String(limit);
}
