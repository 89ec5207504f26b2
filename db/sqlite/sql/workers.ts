// SQL of workers' lives: registration (a stable session number per worker), stop, the handler names a
// process can run, and heartbeats that renew the leases of running tasks.

/**
 * Register or re-register a worker (worker_id, host, pid, role, queues (JSON array or NULL), login_time, started_at,
 * heartbeat_at): a new worker takes the next session number; returns session, login_time.
 */
export const REGISTER_WORKER = `INSERT INTO Workers (worker_id, host, pid, role, queues, session, login_time, started_at, heartbeat_at,
            state)
          VALUES (?, ?, ?, ?, ?, (SELECT COALESCE(MAX(session), 50) + 1 FROM Workers), ?, ?, ?, 'running')
          ON CONFLICT (worker_id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at, queues = excluded.queues, state = 'running',
            stopped_at = NULL
          RETURNING session, login_time`;

/** (stopped_at, heartbeat_at, worker_id) */
export const DEREGISTER_WORKER = "UPDATE Workers SET state = 'stopped', stopped_at = ?, heartbeat_at = ? WHERE worker_id = ?";

/** (name, seen_at) */
export const REGISTER_HANDLER =
  'INSERT INTO Handlers (name, seen_at) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET seen_at = excluded.seen_at';

/** (heartbeat_at, worker_id); a worker marked lost that beats again is running */
export const BEAT =
  "UPDATE Workers SET heartbeat_at = ?, state = CASE WHEN state = 'lost' THEN 'running' ELSE state END WHERE worker_id = ?";

/**
 * Renew a running attempt's lease, fenced on (task, worker, attempt) and on the lease not having expired — or a task
 * claimed ahead, fenced on its claimer with attempts one less than the attempt it will be (@lease, @id, @worker,
 * @attempt, @claimer, @now): a lapsed lease is lost for good, its token may be granted already.
 */
export const RENEW_LEASE = `UPDATE Tasks SET lease_until = @lease
          WHERE id = @id AND lease_until >= @now AND ((status = 'running' AND worker_id = @worker AND attempts = @attempt)
            OR (status = 'claimed' AND worker_id = @claimer AND attempts = @attempt - 1))
          RETURNING cancel_requested`;
