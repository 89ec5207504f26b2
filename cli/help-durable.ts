// Usage text of `event` and `wake` (cli/help.ts shows them): durable handlers' events and suspended tasks.
import { EVENT_NAME_RULE, MAX_EVENT_PAYLOAD_BYTES } from '../lib/engine/limits';

export const EVENT_HELP = `Usage: readpast event send NAME [--payload JSON] [--json]
       readpast event list [--name NAME] [--limit N] [--before ID] [--json]
       readpast event show ID [--json]

An event resumes the durable tasks waiting for it (ctx.waitForEvent): every task waiting for an
event of that NAME whose match its payload contains (each field of the match present at the
payload's top level with an equal value) is resumed with the payload, in the event's transaction.
A task that waits after the event was sent does not see it (unless it was sent while that same
attempt ran). Events are kept as long as finished tasks are (the pool's retention).

send     NAME: ${EVENT_NAME_RULE}. --payload: JSON, at most ${MAX_EVENT_PAYLOAD_BYTES / 1024} KiB (default null).
         Prints the event's id and the tokens of the tasks it resumed (--json: {id, resumed, tokens}).
list     Events newest first: id, time, name, resumed tasks, payload. --name: that name only;
         --limit N (1 to 200, default 50); --before ID: the next page, as printed.
show     One event with its payload and the tasks it resumed (those still kept).
Exit 2 for a bad name or payload, 3 when there is no such event.`;

export const WAKE_HELP = `Usage: readpast wake TOKEN

Resumes a suspended durable task now: a sleeping task's sleep ends at once, a task waiting for an
event stops waiting (its waitForEvent returns null, as at a timeout). It becomes pending and runs
again, replaying the steps it finished. Exit 3 when no task has that token, 4 when it is neither
sleeping nor waiting for an event.`;
