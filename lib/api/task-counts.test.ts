import { describe, expect, it } from 'vitest';
import { taskCounts } from './task-counts';

const zero = { waiting: 0, pending: 0, claimed: 0, running: 0, succeeded: 0, dead: 0, cancelled: 0 };
const reads = {
  countsByQueue: async () => [
    { queue: 'etl', ...zero, waiting: 3, pending: 1, succeeded: 2 },
    // a queue whose only tasks wait for parents is listed too
    { queue: 'later', ...zero, waiting: 4 },
    { queue: 'empty', ...zero },
  ],
  pendingBreakdown: async () => [{ queue: 'etl', ready: 1, scheduled: 0, retrying: 0, oldestReadyAt: null, nextRunAt: null }],
  // of the waiting: suspended by durable handlers
  suspendedCounts: async () => [
    { queue: 'etl', sleeping: 1, waitingEvent: 1 },
    { queue: 'later', sleeping: 2, waitingEvent: 0 },
  ],
};

describe('task counts (the Tasks page tabs)', () => {
  it('counts waiting tasks, in `all` too, overall and per queue', async () => {
    const all = await taskCounts(reads);
    expect(all).toMatchObject({ waiting: 7, sleeping: 3, event: 1, pending: 1, ready: 1, succeeded: 2, all: 10, queues: ['etl', 'later'] });
    expect(await taskCounts(reads, 'etl')).toMatchObject({ queue: 'etl', waiting: 3, sleeping: 1, event: 1, all: 6 });
  });
});
