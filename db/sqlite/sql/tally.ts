// SQL of the kept aggregates: a write transaction adds its deltas to the per-stage counts of batches,
// the per-queue status counts and the per-second activity series, once, just before it commits.

/** Add deltas to one stage of a batch (batch_id, stage, total, pending, running, succeeded, dead, cancelled). */
export const ADD_STAGE_COUNTS = `INSERT INTO BatchStages (batch_id, stage, total, pending, running, succeeded, dead, cancelled)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (batch_id, stage) DO UPDATE SET total = total + excluded.total, pending = pending + excluded.pending,
          running = running + excluded.running, succeeded = succeeded + excluded.succeeded, dead = dead + excluded.dead,
          cancelled = cancelled + excluded.cancelled`;

/** Add a delta to one status count of a queue (queue, status, delta). */
export const ADD_QUEUE_COUNT = `INSERT INTO QueueCounts (queue, status, n) VALUES (?, ?, ?)
        ON CONFLICT (queue, status) DO UPDATE SET n = n + excluded.n`;

/** Add to one second of the activity series (sec, enqueued, started, succeeded, failed, latency_sum, latency_max, dead). */
export const ADD_METRICS = `INSERT INTO Metrics (sec, enqueued, started, succeeded, failed, latency_sum, latency_max, dead)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (sec) DO UPDATE SET enqueued = enqueued + excluded.enqueued, started = started + excluded.started,
          succeeded = succeeded + excluded.succeeded, failed = failed + excluded.failed,
          latency_sum = latency_sum + excluded.latency_sum, latency_max = MAX(latency_max, excluded.latency_max),
          dead = dead + excluded.dead`;

/** Add created tasks to one second of the activity series, nothing else of it (sec, enqueued). */
export const ADD_ENQUEUED_METRIC = `INSERT INTO Metrics (sec, enqueued) VALUES (?, ?)
        ON CONFLICT (sec) DO UPDATE SET enqueued = enqueued + excluded.enqueued`;
