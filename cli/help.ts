// Usage text of the command line, kept apart from the commands so `help` loads nothing else.

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
  help [COMMAND]             this text, or a command's options

Database: READPAST_DATABASE_URL (default sqlite:data/readpast.db), e.g.
  sqlite:/var/lib/readpast.db
  mssql://user:pass@host:1433/db?encrypt=true&trustServerCertificate=true
Logging: READPAST_LOG_LEVEL (worker default info, other commands warn), written to stderr.

Exit codes:
  0  success
  1  unexpected failure (database unreachable, internal error)
  2  bad arguments (unknown flag, missing or malformed value, unknown handler, bad token)
  3  not found (no task with that token)
  4  conflict (the task's state does not allow the action)

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
  --priority N         higher runs first, -1000 to 1000 (default 0); negative: --priority=-5
  --max-attempts N     attempts before the task is dead, 1 to 100 (default: the queue's)
  --run-at ISO         not before this time, e.g. 2030-01-01T09:00:00Z
  --timeout-ms N       abort an attempt after N ms (outcome timed_out)
  --dedup-key K        unique among unfinished tasks; a duplicate prints the existing token
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
};

COMMANDS.help = `Usage: readpast help [COMMAND]\n\nCommands: ${Object.keys(COMMANDS).join(', ')}`;

export function helpText(command?: string): string | null {
  if (command === undefined) return GENERAL;
  return COMMANDS[command] ?? null;
}

export const COMMAND_NAMES = ['migrate', 'worker', 'enqueue', 'status', 'stats', 'retry', 'cancel', 'help'] as const;
