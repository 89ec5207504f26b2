// SQL of events (lib/engine/types/durable.ts): sending one (its row, the waits it may resume), a suspending task
// looking for one sent since its attempt began, the Events page, and pruning.

/** (name, payload, sent_at, caller) → id */
export const INSERT_EVENT = 'INSERT INTO Events (name, payload, sent_at, caller) VALUES (?, ?, ?, ?) RETURNING id';

/** The tasks suspended on an event of this name, with their match (event); over TaskSteps_waiting. */
export const WAITING_FOR = `SELECT s.task_id, s.event_match FROM TaskSteps s JOIN Tasks t ON t.id = s.task_id
      WHERE s.event = ? AND s.status = 'waiting' AND t.status = 'waiting' AND t.suspended = 'event' ORDER BY s.task_id`;

/** (n, id) */
export const ADD_RESUMED = 'UPDATE Events SET resumed = resumed + ? WHERE id = ?';

/** When an attempt began (task_id, attempt). */
export const ATTEMPT_STARTED = 'SELECT started_at FROM ExecutionLog WHERE task_id = ? AND attempt = ?';

/** Events of a name sent at or after a time, oldest first (name, since); over Events_name. */
export const EVENTS_SINCE = 'SELECT id, payload FROM Events WHERE name = ? AND sent_at >= ? ORDER BY sent_at, id';

export const GET_EVENT = 'SELECT id, name, payload, sent_at, caller, resumed FROM Events WHERE id = ?';

/** A keyset page of events, newest first (@name or NULL, @before or NULL, @limit). */
export const LIST_EVENTS = `SELECT id, name, payload, sent_at, caller, resumed FROM Events
      WHERE (@name IS NULL OR name = @name) AND (@before IS NULL OR id < @before) ORDER BY id DESC LIMIT @limit`;

/** The kept tasks an event resumed (event_id); over TaskSteps_event. */
export const EVENT_TASKS = `SELECT t.token, t.queue, t.command, t.status, s.name AS step FROM TaskSteps s JOIN Tasks t ON t.id = s.task_id
      WHERE s.event_id = ? ORDER BY t.id LIMIT 1000`;

/** Events sent before the cutoff that no unfinished task was resumed by (cutoff). */
export const PRUNE_EVENTS = `DELETE FROM Events WHERE sent_at < ? AND NOT EXISTS (SELECT 1 FROM TaskSteps s JOIN Tasks t ON t.id = s.task_id
        WHERE s.event_id = Events.id AND t.status IN ('waiting', 'pending', 'claimed', 'running'))`;
