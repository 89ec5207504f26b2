// Entry of the `readpast` command line: picks the command, runs it, maps errors to exit codes.
import { asActor } from '../lib/api/audit';
import { errorLine, EXIT, exitCodeFor, UsageError } from './errors';
import { helpText, isSubcommand } from './help';

type Command = (argv: string[]) => Promise<number>;

// Loaded on demand so `help` and argument errors stay fast.
const COMMANDS: Record<string, () => Promise<{ run: Command }>> = {
  migrate: () => import('./commands/migrate'),
  worker: () => import('./commands/worker'),
  dashboard: () => import('./commands/dashboard'),
  enqueue: () => import('./commands/enqueue'),
  status: () => import('./commands/status'),
  stats: () => import('./commands/stats'),
  retry: () => import('./commands/retry'),
  cancel: () => import('./commands/cancel'),
  wake: () => import('./commands/wake'),
  event: () => import('./commands/event'),
  queue: () => import('./commands/queue'),
  batch: () => import('./commands/batch'),
  flow: () => import('./commands/flow'),
  tasks: () => import('./commands/tasks'),
  schedule: () => import('./commands/schedule'),
  alert: () => import('./commands/alert'),
  doctor: () => import('./commands/doctor'),
};

/** the OS user ($USER), as the queue history has always named CLI changes (`cli:$USER`); `cli` without one */
function cliUser(): string {
  return process.env.USER?.trim() || 'cli';
}

const isHelpFlag = (a: string) => a === '--help' || a === '-h';

function help(topic: string | undefined): number {
  const text = helpText(topic);
  if (text === null) {
    process.stderr.write(errorLine(null, new UsageError(null, `no command ${JSON.stringify(topic)}; see 'readpast help'`)) + '\n');
    return EXIT.usage;
  }
  process.stdout.write(text + '\n');
  return EXIT.ok;
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    process.stderr.write(helpText() + '\n');
    return EXIT.usage;
  }
  if (name === 'help' || isHelpFlag(name)) {
    // `help queue set` shows the `queue` page, which covers its subcommands
    if (rest.length === 2 && isSubcommand(rest[0]!, rest[1]!)) return help(rest[0]);
    if (rest.length > 1) return help('help');
    return help(rest[0]);
  }
  const load = COMMANDS[name];
  if (!load) {
    process.stderr.write(errorLine(null, new UsageError(null, `unknown command ${JSON.stringify(name)}; see 'readpast help'`)) + '\n');
    return EXIT.usage;
  }
  // `--help` anywhere before a `--` terminator asks for the command's usage
  const beforeTerminator = rest.indexOf('--') === -1 ? rest : rest.slice(0, rest.indexOf('--'));
  if (beforeTerminator.some(isHelpFlag)) return help(name);
  try {
    const { run } = await load();
    // what the command changes is recorded in the audit log as done by this OS user from the CLI
    return await asActor({ name: cliUser(), source: 'cli' }, () => run(rest));
  } catch (err) {
    const code = exitCodeFor(err);
    const label = rest[0] !== undefined && isSubcommand(name, rest[0]) ? `${name} ${rest[0]}` : name;
    process.stderr.write(errorLine(label, err) + '\n');
    if (code === EXIT.failure && process.env.READPAST_DEBUG && err instanceof Error && err.stack) {
      process.stderr.write(err.stack + '\n');
    }
    return code;
  }
}
