// Usage text of the command line, kept apart from the commands so `help` loads nothing else
// (but the bounds it quotes, from a module that imports nothing).
import {
  MAX_ATTEMPTS,
  MAX_BATCH_PARALLEL,
  MAX_CONCURRENCY_LIMIT,
  MAX_DASHBOARD_WORKERS,
  MAX_PER_KEY_LIMIT,
  MAX_PRIORITY,
  MAX_STAGE,
  MIN_ATTEMPTS,
  MIN_BATCH_PARALLEL,
  MIN_CONCURRENCY_LIMIT,
  MIN_PER_KEY_LIMIT,
  MIN_PRIORITY,
  MIN_STAGE,
  MAX_PARENTS,
} from '../lib/engine/limits';
import { EVENT_HELP, WAKE_HELP } from './help-durable';
import { FLOW_HELP, TASKS_HELP } from './help-flows';

const GENERAL = `readpast — durable parallel tasks on SQL Server or SQLite

Usage: readpast <command> [options]

Commands:
  migrate [--allow-sql on|off]  create or upgrade the database schema
  doctor [--json]            what will work on this database, each missing piece with its remedy
  worker                     run a pool of workers in the foreground (SIGTERM/SIGINT stop it gracefully)
  dashboard [--port N]       serve the prebuilt dashboard (and a worker pool) on 127.0.0.1:3000
  enqueue                    add a task (--after TOKEN: once that task succeeded); prints its token
  status TOKEN [--json]      a task's state, result, last error, attempt history, parents and children
  tasks [--status S] …       list tasks (--status waiting, --flow ID, --queue, …)
  stats [--json]             task counts by status per queue; workers and their heartbeat age
  retry TOKEN                run a dead or cancelled task again
  cancel TOKEN               cancel a waiting or pending task, or ask a running one to stop
  wake TOKEN                 resume a sleeping durable task (or one waiting for an event) now
  event send NAME [--payload JSON]   resume the durable tasks waiting for that event
  event list | show ID       recent events / one with the tasks it resumed
  queue set NAME …           change a queue's limits live (also per key, keyFrom, rate), pause or resume it
  queue show NAME            one queue: limits, per-key limit, keyFrom, rate window, top keys
  queue list [--json]        every queue: limit, paused, running, pending, granted tokens; recent changes
  queue tokens [NAME]        a limited queue's tokens and who holds them
  batch create [options]     start a batch of staged tasks; prints its id alone on stdout
  batch status ID [--json]   a batch's status, active stage and per-stage counts
  batch wait ID [--stage K]  block until the stage (or the whole batch) is finished; print the outcomes
  batch release ID           no more tasks: the batch completes once all are finished
  batch cancel ID            cancel a batch's unfinished tasks
  flow create FILE|-         create a graph of tasks (nodes with dependsOn) at once; prints its id and tokens
  flow show ID | list        a flow's nodes by state / every flow with its counts
  flow cancel|retry ID       cancel its unfinished nodes / retry its failed ones
  schedule add NAME --cron … a recurring task (cron + time zone); fired once per tick by any worker process
  schedule list | show NAME  every schedule / one with its next 5 fire times and last 50 fires
  schedule pause|resume|run|remove NAME   stop or restart its fires, fire it once now, delete it
  alert add NAME --kind … --url …   an alert rule: a webhook POST when tasks die, queues back up, …
  alert list | show|test|remove NAME   every rule / one with its recent firings, send a test, delete
  help [COMMAND]             this text, or a command's options

Database: READPAST_DATABASE_URL (default sqlite:data/readpast.db), e.g.
  sqlite:/var/lib/readpast.db
  mssql://user:pass@host:1433/db?encrypt=true&trustServerCertificate=true
Logging: READPAST_LOG_LEVEL (worker default info, other commands warn), written to stderr.

Exit codes:
  0  success
  1  failure at run time (database unreachable, its schema of another version, internal error)
  2  bad input or a configuration refused (unknown flag, malformed value, unknown handler, bad token;
     an environment value out of range, a database URL that cannot be used)
  3  not found (no task with that token, no batch, flow or event with that id, no such queue or schedule)
  4  conflict (the task's or batch's state does not allow the action; a schedule name taken)
  5  timed out (batch wait --timeout-s passed before the batch or stage was finished)
  6  doctor: something this configuration needs is missing or failing

Run 'readpast help <command>' for a command's options.`;

const COMMANDS: Record<string, string> = {
  migrate: `Usage: readpast migrate [--allow-sql on|off]

Creates or upgrades the schema of READPAST_DATABASE_URL. Idempotent; \`readpast worker\` and
the dashboard also migrate on start. Other commands do not on SQL Server (a missing schema says to
run this); the embedded SQLite file is always brought up to date.

  --allow-sql on|off  SQL Server: whether T-SQL callers (readpast.ExecAsync @Kind = 'sql') may enqueue
                      sql tasks; stored in readpast.Settings (allow_sql, off by default), never changed
                      by the procedures. Without the flag the setting is left as it is.`,

  doctor: `Usage: readpast doctor [--json]

Tells what will work on READPAST_DATABASE_URL before the first task runs, one line per check:
✓ fine, ✗ missing or failing (with the remedy under it: the exact GRANT, a setting, a command),
– informational or skipped. It changes nothing: it neither creates nor migrates the database.

SQL Server: the server's version and edition (Babelfish and other stand-ins are refused), the
database's compatibility level, READ_COMMITTED_SNAPSHOT and what it means here, the schema and
its migration level, this login's permissions per feature (read and write readpast's tables,
EXECUTE for procedure tasks, VIEW SERVER STATE for live request state, ALTER ANY CONNECTION for
KILL), clock skew against the server, round-trip time, and a worker's claim run inside a
transaction that is rolled back.
SQLite: the file (there, writable, its size), that it is a database, WAL, SQLite's version, the
schema's migration level, a write transaction (BEGIN IMMEDIATE, rolled back), better-sqlite3.

--json prints {dialect, database, checkedAt, ok, summary: {passed, failed, optional, other},
checks: [{id, title, ok, detail, remedy, needed}]}; ok is true/false/null (null: information or
skipped). Exit 0 when everything this configuration needs is in place (features marked
optional may be off), 6 when a needed check fails (the database cannot be reached included).`,

  dashboard: `Usage: readpast dashboard [--port N] [--host H] [--handlers MODULE] [--workers N]

Serves the dashboard that comes built in the package (no build step) against READPAST_DATABASE_URL
(default sqlite:data/readpast.db under the current directory), with a pool of N workers in the same
process (default 4; 0: dashboard only). The same settings and checks as \`npm start\`: READPAST_AUTH,
READPAST_VIEWERS, READPAST_ALLOW_SQL, READPAST_HOST and PORT (the flags win over them); listening
on anything but loopback without READPAST_AUTH is refused (exit 2).

Options:
  --port N             port (default PORT, else 3000)
  --host H             address to bind (default READPAST_HOST, else 127.0.0.1)
  --handlers MODULE    your handlers module (as for worker), so the dashboard's workers run them
  --workers N          workers in the dashboard's process, 0 to ${MAX_DASHBOARD_WORKERS} (default READPAST_WORKERS, else 4)

SIGTERM / SIGINT stop it gracefully (running tasks get 10 s, the rest are given back); it also
stops when the process that started it is gone.`,

  worker: `Usage: readpast worker [--concurrency N] [--lease-seconds S] [--handlers MODULE] [--queues a,b]

Runs a pool of N workers in the foreground until SIGTERM or SIGINT. The first signal stops
claiming, lets running tasks finish within a grace period and gives back the rest; a second
signal exits at once (the leases of unfinished tasks expire and another worker rescues them).
It stops the same way when the process that started it is gone (npx or npm stopped alone).

Options:
  --concurrency N      workers in this process (default 4)
  --lease-seconds S    lease of a running task, renewed by the heartbeat (default 30); a task
                       whose worker dies is rescued once its lease expires
  --handlers MODULE    a module (path relative to the current directory) whose default or
                       'register' export is (registry) => void, or an object of name → handler
  --queues a,b         only claim tasks of these queues (default: all)

With OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_TRACES_EXPORTER, OTEL_SERVICE_NAME) set, every attempt
is traced and exported over OTLP/HTTP (OTEL_EXPORTER_OTLP_PROTOCOL: http/protobuf or http/json).`,

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
  --key K              its concurrency key (≤ 200 characters, e.g. a customer id): the queue's
                       per-key limit and per-key rate count it, keys take turns (default: the
                       key the queue's keyFrom path finds in the payload, if any)
  --batch ID           add the task to an open batch (see 'readpast help batch'); exit 3 when
                       there is no such batch, 4 when it is released or finished
  --stage K            its stage in the batch, ${MIN_STAGE} to ${MAX_STAGE} (default 0); needs --batch
  --after TOKEN        run only after that task succeeded (repeat for several parents, up to ${MAX_PARENTS});
                       until then the task is waiting. Not with --batch
  --on-parent-failure cancel|run|wait   when a parent goes dead or is cancelled: cancel this task
                       (default), run it anyway, or keep it waiting for an operator (retry the parent)
  --handlers MODULE    load custom handlers first, so their names are accepted (see worker)

TRACEPARENT (and TRACESTATE) in the environment: the W3C trace context the task continues.`,

  status: `Usage: readpast status TOKEN [--json]

Prints a task's status, times, attempts, result, last error and every attempt from the
ExecutionLog, and for a task with dependencies its flow, parents and children with their
states. --json prints {token, status, queue, kind, command, priority, attempts,
maxAttempts, createdAt, startedAt, finishedAt, result, lastError, history: [{attempt,
workerId, session, startedAt, endedAt, outcome, errorNumber, errorMessage, traceId}], flowId,
flowNode, parentCount, parentsLeft, parents: [{token, nodeId, command, status,
onParentFailure}], children: [...], childCount, traceId, …} with ISO-8601 times to the millisecond.
Exit 3 when no task has that token.`,

  stats: `Usage: readpast stats [--json]

Task counts by status per queue, totals, and the workers with their heartbeat age.`,

  retry: `Usage: readpast retry TOKEN

Puts a dead or cancelled task back to pending (granting one more attempt if they were used
up), or to waiting while a parent has not succeeded; the tasks it cancelled as their parent
wait for it again. Exit 3 when no task has that token, 4 when the task is not dead or cancelled.`,

  cancel: `Usage: readpast cancel TOKEN

Cancels a waiting or pending task at once (the tasks waiting for it apply their policy: by
default they are cancelled too); a running task is asked to stop through its AbortSignal.
Exit 3 when no task has that token, 4 when the task is already finished.`,

  queue: `Usage: readpast queue set NAME [--limit N | --unlimited] [--pause | --resume]
                 [--per-key-limit N|none] [--key-from PATH|none] [--rate RATE|none [--rate-per-key]] [--json]
       readpast queue show NAME [--keys N] [--json]
       readpast queue list [--json]
       readpast queue tokens [NAME] [--json]

set      Changes a queue's limits and/or pauses it, live, for every worker on the database (the
         queue is created if it does not exist yet). Give at least one of:
           --limit N      at most N of the queue's tasks run at once, across all processes
                          (${MIN_CONCURRENCY_LIMIT} to ${MAX_CONCURRENCY_LIMIT}; 1 = singleton). Raising takes effect on the next claim;
                          lowering never stops running tasks, it grants nothing until fewer
                          than N run
           --unlimited    no limit (cannot be combined with --limit)
           --pause        workers claim none of the queue's tasks (running ones finish)
           --resume       claim them again (cannot be combined with --pause)
           --per-key-limit N   at most N running tasks per concurrency key (${MIN_PER_KEY_LIMIT} to ${MAX_PER_KEY_LIMIT}),
                          on top of --limit; none: no per-key cap. Keys take turns either way.
           --key-from PATH     a task enqueued without --key gets its key from its payload at
                          this JSON path ($.customerId, $.order.tenant, $.items[0].id); none: off
           --rate RATE    at most LIMIT attempts start in any window of PERIOD: 60/1m, 20/2s,
                          1000/1h, 5/1d (or seconds: 100/30); '20/2s per key' or --rate-per-key
                          keeps a window per key; none: no rate limit. A task over the rate
                          waits (no attempt spent) until a start is allowed
         Prints the queue as one line (--json: {name, concurrencyLimit, paused, pending,
         running, granted, perKeyLimit, keyFrom, rateLimit, rate, keys, …}). Each change is
         recorded with who made it: cli:$USER (or cli).
show     One queue: its limits, throttle, the rate window now (started of limit, when the
         next start is allowed), the top keys by running then pending (--keys N, default 10) and
         its recent changes. --json: the queue as list prints it, with keys and changes.
         Exit 3 when there is no queue NAME.
list     Every queue with its limit, paused state, running, pending and granted tokens, per-key
         limit and rate, then the recorded changes, newest first (when, by whom, old → new).
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
         []}), one line on stderr, and exits 5. SIGTERM / SIGINT, or the end of the process
         that started it, stop the wait (exit 143 / 130).
release  No more tasks will be added: the batch completes once all of its tasks are finished.
         Exit 4 when it was already released or is finished.
cancel   Cancels the batch's pending tasks and asks its running ones to stop. Exit 4 when it is
         already finished.

Exit 3 when there is no batch ID.`,
};

COMMANDS.schedule = `Usage: readpast schedule add NAME --cron EXPR [--tz ZONE]
           (--handler NAME [--payload JSON] | --sql TEXT | --procedure NAME [--params JSON])
           [--queue Q] [--priority N] [--max-attempts N] [--timeout-ms N]
           [--misfire skip|run_once] [--overlap allow|skip_if_running] [--json]
       readpast schedule list [--json]
       readpast schedule show NAME [--json]
       readpast schedule pause|resume|run|remove NAME [--json]

A schedule creates a task at every tick of its cron expression, read in its time zone (DST
gaps and overlaps included). Every process with a worker pool (readpast worker, the
dashboard) checks the due schedules about once a second; each tick fires exactly once,
however many of them run. A fired task is a normal task with schedule: {name, fireAt}.

add      --cron EXPR      5 fields (minute hour day month weekday), or 6 with seconds first,
                          e.g. "*/5 * * * *", "0 2 * * 1-5", "*/10 * * * * *"
         --tz ZONE        IANA time zone the expression is read in (default UTC), e.g. Europe/Berlin
         --handler NAME, --sql TEXT, --procedure NAME: the task, as for enqueue (--payload JSON
                          for a handler, --params JSON for a procedure); --queue, --priority
                          (${MIN_PRIORITY} to ${MAX_PRIORITY}), --max-attempts (${MIN_ATTEMPTS} to ${MAX_ATTEMPTS}) and
                          --timeout-ms as for enqueue
         --misfire skip       after downtime, missed ticks are dropped (default)
         --misfire run_once   after downtime, fire once for all the missed ticks
                              (a tick is missed when it is later than its interval, 5 s at least,
                              a minute at most)
         --overlap allow            fire whatever the previous fire is doing (default)
         --overlap skip_if_running  no fire while the previous fire's task is pending or running
         Prints one line (--json: the schedule as show prints it). Exit 4 when the name is
         taken; exit 2 names the flag of a bad value (a bad expression names --cron).
list     Every schedule: expression, zone, next fire, last fire and its task's status, state,
         source (dashboard, or code: declared in a handlers module's \`schedules\` export).
         --json: {schedules: [{name, cron, description, timezone, kind, command, payload, queue,
         priority, maxAttempts, timeoutMs, misfire, overlap, enabled, source, declared,
         nextFireAt, lastFireAt, lastToken, createdBy, createdAt, updatedBy, updatedAt,
         recent: [{token, fireAt, manual, status}]}]} (recent: the last 20 fires, newest first).
show     One schedule with its next 5 fire times and its last 50 fires (newest first; fireAt is
         the tick a task was fired for; a manual run has manual: true and the time it was run).
         --json: as a list item, recent up to 50, plus nextFires: [ISO, …].
pause    No more fires until resumed (a code-declared schedule too).
resume   Fires again from the next tick after now (ticks while paused are not made up).
run      Fires once now, outside the cron, also while paused; prints the task's token alone.
         The task has schedule: {name, fireAt, manual: true}.
remove   Deletes the schedule; the tasks it fired stay. Exit 4 for a schedule declared in code
         (remove it from the code instead).

Schedules declared in code (a handlers module's \`schedules\` export, loaded by
'readpast worker --handlers MODULE') cannot be edited or removed here: exit 4 says so.
Exit 3 when there is no schedule NAME.`;

COMMANDS.alert = `Usage: readpast alert add NAME --kind KIND --url URL [--queue Q] [--command C] [--schedule S]
                         [--threshold-s N] [--count N] [--secret S | --secret-env VAR]
                         [--format json|slack] [--dedup-s N] [--disabled] [--json]
       readpast alert list [--json]
       readpast alert show|test|remove NAME|ID [--json]

An alert rule sends a webhook POST when what it watches happens. Any process with a pool (a worker,
the dashboard) judges the rules every 5 s; a rule fires once per key within its dedup window (default
10 min) however many processes judge it. Each delivery is a task of queue readpast.alerts (handler
readpast.alert.deliver): a failed POST (non-2xx, refused, 10 s timeout) is retried with backoff, 5
attempts; see it with 'readpast status TOKEN'. A worker started with --queues must list
readpast.alerts to deliver them (the dashboard's pool serves every queue).

Kinds:
  task_dead        a task went dead            [--queue Q] [--command C]
  ready_age        oldest ready task too old   --threshold-s N [--queue Q]
  no_worker        ready tasks, no live worker [--queue Q]
  schedule_missed  a tick late by more than    [--threshold-s N, default 60] [--schedule S]
  failure_streak   N failed attempts in a row  --command C --count N
Without --queue a rule watches every queue but readpast.alerts.

--secret      key of the X-Readpast-Signature header: sha256=<hex HMAC-SHA256 of the raw body>
              (--secret-env VAR reads it from the environment, out of the shell history). Shown as
              ••••last4 afterwards. Without one no signature is sent.
--format      json (default: {source, rule, ruleId, kind, key, message, firedAt, test, details}) or
              slack ({text}: Slack and Teams incoming webhooks)
--url         must reach a public address: a loopback, link-local (cloud metadata), private, CGNAT,
              multicast or other internal address — or a name resolving to one, or a name that does
              not resolve — is refused (exit 2), and checked again at each delivery. Allow your own
              internal endpoints with READPAST_WEBHOOK_ALLOW=10.20.0.0/16,hooks.corp,*.svc.corp

add      Prints one line (--json: the rule). Exit 4 when the name is taken.
list     Every rule. show: one rule with its 20 newest firings and their delivery status.
test     Sends a test delivery now (also while disabled); prints the delivery task's token alone.
remove   Deletes the rule; its firings stay in the history.
Exit 3 when there is no such rule.`;

COMMANDS.flow = FLOW_HELP;
COMMANDS.event = EVENT_HELP;
COMMANDS.wake = WAKE_HELP;
COMMANDS.tasks = TASKS_HELP;

COMMANDS.help = `Usage: readpast help [COMMAND]\n\nCommands: ${Object.keys(COMMANDS).join(', ')}`;

export function helpText(command?: string): string | null {
  if (command === undefined) return GENERAL;
  return COMMANDS[command] ?? null;
}

export const COMMAND_NAMES = [
  'migrate',
  'doctor',
  'worker',
  'dashboard',
  'enqueue',
  'status',
  'tasks',
  'stats',
  'retry',
  'cancel',
  'wake',
  'event',
  'queue',
  'batch',
  'flow',
  'schedule',
  'alert',
  'help',
] as const;

/** Commands with subcommands; `readpast help queue set` shows the `queue` page. */
export const SUBCOMMANDS = {
  queue: ['set', 'show', 'list', 'tokens'],
  batch: ['create', 'status', 'wait', 'release', 'cancel'],
  flow: ['create', 'show', 'list', 'cancel', 'retry'],
  event: ['send', 'list', 'show'],
  schedule: ['add', 'list', 'show', 'pause', 'resume', 'run', 'remove'],
  alert: ['add', 'list', 'show', 'test', 'remove'],
} as const;

export function isSubcommand(command: string, sub: string): boolean {
  return (SUBCOMMANDS as Record<string, readonly string[]>)[command]?.includes(sub) ?? false;
}
