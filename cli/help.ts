// Usage text of the command line, kept apart from the commands so `help` loads nothing else
// (but the bounds it quotes, from a module that imports nothing).
import {
  MAX_ATTEMPTS,
  MAX_BATCH_PARALLEL,
  MAX_CONCURRENCY_LIMIT,
  MAX_PRIORITY,
  MAX_STAGE,
  MIN_ATTEMPTS,
  MIN_BATCH_PARALLEL,
  MIN_CONCURRENCY_LIMIT,
  MIN_PRIORITY,
  MIN_STAGE,
} from '../lib/engine/limits';

const GENERAL = `readpast — durable parallel tasks on SQL Server or SQLite

Usage: readpast <command> [options]

Commands:
  migrate                    create or upgrade the database schema
  worker                     run a pool of workers in the foreground (SIGTERM/SIGINT stop it gracefully)
  enqueue                    add a task; prints its token alone on stdout
  status TOKEN [--json]      a task's state, result, last error and attempt history
  stats [--json]             task counts by status per queue; workers and their heartbeat age
  retry TOKEN                run a dead or cancelled task again
  cancel TOKEN               cancel a pending task, or ask a running one to stop
  queue set NAME …           change a queue's concurrency limit live, pause or resume it
  queue list [--json]        every queue: limit, paused, running, pending, granted tokens; recent changes
  queue tokens [NAME]        a limited queue's tokens and who holds them
  batch create [options]     start a batch of staged tasks; prints its id alone on stdout
  batch status ID [--json]   a batch's status, active stage and per-stage counts
  batch wait ID [--stage K]  block until the stage (or the whole batch) is finished; print the outcomes
  batch release ID           no more tasks: the batch completes once all are finished
  batch cancel ID            cancel a batch's unfinished tasks
  help [COMMAND]             this text, or a command's options

Database: READPAST_DATABASE_URL (default sqlite:data/readpast.db), e.g.
  sqlite:/var/lib/readpast.db
  mssql://user:pass@host:1433/db?encrypt=true&trustServerCertificate=true
Logging: READPAST_LOG_LEVEL (worker default info, other commands warn), written to stderr.

Exit codes:
  0  success
  1  unexpected failure (database unreachable, internal error)
  2  bad arguments (unknown flag, missing or malformed value, unknown handler, bad token)
  3  not found (no task with that token, no batch with that id, no such queue)
  4  conflict (the task's or batch's state does not allow the action)
  5  timed out (batch wait --timeout-s passed before the batch or stage was finished)

Run 'readpast help <command>' for a command's options.`;

const COMMANDS: Record<string, string> = {
  migrate: `Usage: readpast migrate

Creates or upgrades the schema of READPAST_DATABASE_URL. Idempotent; every other command
also migrates on start.`,

  worker: `Usage: readpast worker [--concurrency N] [--lease-seconds S] [--handlers MODULE] [--queues a,b]

Runs a pool of N workers in the foreground until SIGTERM or SIGINT. The first signal stops
claiming, lets running tasks finish within a grace period and gives back the rest; a second
signal exits at once (the leases of unfinished tasks expire and another worker rescues them).

Options:
  --concurrency N      workers in this process (default 4)
  --lease-seconds S    lease of a running task, renewed by the heartbeat (default 30); a task
                       whose worker dies is rescued once its lease expires
  --handlers MODULE    a module (path relative to the current directory) whose default or
                       'register' export is (registry) => void, or an object of name → handler
  --queues a,b         only claim tasks of these queues (default: all)`,

  enqueue: `Usage: readpast enqueue (--handler NAME | --sql TEXT | --procedure NAME) [options]

Adds one task and prints its token alone on stdout.

Options:
  --handler NAME       run a registered handler (demo.sleep, demo.fail, demo.flaky, demo.echo, …)
  --sql TEXT           run a SQL batch on a worker's own session
  --procedure NAME     run a stored procedure with --payload as its parameters (SQL Server only)
  --payload JSON       the handler's payload / the procedure's parameters (a JSON value)
  --queue Q            queue name (default 'default')
  --priority N         higher runs first, ${MIN_PRIORITY} to ${MAX_PRIORITY} (default 0); negative: --priority=-5
  --max-attempts N     attempts before the task is dead, ${MIN_ATTEMPTS} to ${MAX_ATTEMPTS} (default: the queue's)
  --run-at ISO         not before this time, e.g. 2030-01-01T09:00:00Z
  --timeout-ms N       abort an attempt after N ms (outcome timed_out)
  --dedup-key K        unique among unfinished tasks; a duplicate prints the existing token
  --batch ID           add the task to an open batch (see 'readpast help batch'); exit 3 when
                       there is no such batch, 4 when it is released or finished
  --stage K            its stage in the batch, ${MIN_STAGE} to ${MAX_STAGE} (default 0); needs --batch
  --handlers MODULE    load custom handlers first, so their names are accepted (see worker)`,

  status: `Usage: readpast status TOKEN [--json]

Prints a task's status, times, attempts, result, last error and every attempt from the
ExecutionLog. --json prints {token, status, queue, kind, command, priority, attempts,
maxAttempts, createdAt, startedAt, finishedAt, result, lastError, history: [{attempt,
workerId, session, startedAt, endedAt, outcome, errorNumber, errorMessage}], …} with
ISO-8601 times to the millisecond. Exit 3 when no task has that token.`,

  stats: `Usage: readpast stats [--json]

Task counts by status per queue, totals, and the workers with their heartbeat age.`,

  retry: `Usage: readpast retry TOKEN

Puts a dead or cancelled task back to pending (granting one more attempt if they were used
up). Exit 3 when no task has that token, 4 when the task is not dead or cancelled.`,

  cancel: `Usage: readpast cancel TOKEN

Cancels a pending task at once; a running task is asked to stop through its AbortSignal.
Exit 3 when no task has that token, 4 when the task is already finished.`,

  queue: `Usage: readpast queue set NAME (--limit N | --unlimited) [--pause | --resume] [--json]
       readpast queue list [--json]
       readpast queue tokens [NAME] [--json]

set      Changes a queue's concurrency limit and/or pauses it, live, for every worker on the
         database (the queue is created if it does not exist yet). Give at least one of:
           --limit N      at most N of the queue's tasks run at once, across all processes
                          (${MIN_CONCURRENCY_LIMIT} to ${MAX_CONCURRENCY_LIMIT}; 1 = singleton). Raising takes effect on the next claim;
                          lowering never stops running tasks, it grants nothing until fewer
                          than N run
           --unlimited    no limit (cannot be combined with --limit)
           --pause        workers claim none of the queue's tasks (running ones finish)
           --resume       claim them again (cannot be combined with --pause)
         Prints the queue as one line (--json: {name, concurrencyLimit, paused, pending,
         running, granted, …}). The change is recorded with who made it: cli:$USER (or cli).
list     Every queue with its limit, paused state, running, pending and granted tokens, then
         the recorded changes, newest first (when, by whom, old → new).
         --json: {queues: [...], changes: [{queue, at, changedBy, field, oldValue, newValue}]}.
tokens   The concurrency tokens of queue NAME (of every limited queue without NAME): token
         number, free or granted, and for a grant the task token, attempt, worker, session,
         granted at, and whether its holder is dead (its lease or worker is gone; the next claim
         reclaims it). --json: an array of {queue, tokenNo, status, token, attempt, workerId,
         session, grantedAt, holderDead}. Exit 3 when there is no queue NAME.`,

  batch: `Usage: readpast batch create [--max-parallel N] [--on-failure continue|abort]
       readpast batch status ID [--json]
       readpast batch wait ID [--stage K] [--timeout-s S] [--json]
       readpast batch release ID
       readpast batch cancel ID

A batch runs its tasks in ordered stages: the tasks of one stage run in parallel, and a task of
stage K starts only once every task of the stages before it is finished. Add tasks with
'readpast enqueue … --batch ID --stage K'.

create   Prints the new batch's id alone on stdout, so id=$(readpast batch create) works.
           --max-parallel N        at most N of the batch's tasks run at once (${MIN_BATCH_PARALLEL} to ${MAX_BATCH_PARALLEL};
                                   default: no cap)
           --on-failure continue   a dead task does not stop the batch (default)
           --on-failure abort      a dead task cancels the batch's remaining stages
status   Status (open, released, completed, aborted, cancelled), active stage, cap, times and
         per-stage counts (total, pending, running, succeeded, dead, cancelled, first started,
         last ended). --json: {id, status, activeStage, maxParallel, onFailure, createdAt,
         releasedAt, completedAt, totals: {...}, stages: [{stage, total, pending, …}]}.
wait     Blocks until every task of stage K (and of the stages before it), or with no --stage
         the whole batch, is finished, then prints their outcomes and exits 0 (whatever the
         outcomes: check them). --json: {done, batch, tasks: [{token, status, stage, result,
         lastError, …}]}. Without --stage it ends once every task added so far is finished
         (release the batch first to wait for its completion). With --timeout-s S, when S
         seconds pass first it prints the current state (--json: {done: false, batch, tasks:
         []}), one line on stderr, and exits 5.
release  No more tasks will be added: the batch completes once all of its tasks are finished.
         Exit 4 when it was already released or is finished.
cancel   Cancels the batch's pending tasks and asks its running ones to stop. Exit 4 when it is
         already finished.

Exit 3 when there is no batch ID.`,
};

COMMANDS.help = `Usage: readpast help [COMMAND]\n\nCommands: ${Object.keys(COMMANDS).join(', ')}`;

export function helpText(command?: string): string | null {
  if (command === undefined) return GENERAL;
  return COMMANDS[command] ?? null;
}

export const COMMAND_NAMES = ['migrate', 'worker', 'enqueue', 'status', 'stats', 'retry', 'cancel', 'queue', 'batch', 'help'] as const;

/** Commands with subcommands; `readpast help queue set` shows the `queue` page. */
export const SUBCOMMANDS = {
  queue: ['set', 'list', 'tokens'],
  batch: ['create', 'status', 'wait', 'release', 'cancel'],
} as const;

export function isSubcommand(command: string, sub: string): boolean {
  return (SUBCOMMANDS as Record<string, readonly string[]>)[command]?.includes(sub) ?? false;
}
