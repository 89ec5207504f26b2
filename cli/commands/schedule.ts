// readpast schedule add NAME --cron EXPR [--tz ZONE] (--handler NAME [--payload JSON] | --sql TEXT | --procedure NAME [--params JSON])
//                   [--queue Q] [--priority N] [--max-attempts N] [--timeout-ms N] [--misfire skip|run_once]
//                   [--overlap allow|skip_if_running] [--json]
// readpast schedule list [--json]
// readpast schedule show NAME [--json]
// readpast schedule pause|resume|run|remove NAME
import { ValidationError } from '../../lib/engine/errors';
import { MAX_ATTEMPTS, MAX_PRIORITY, MAX_TIMEOUT_MS, MIN_ATTEMPTS, MIN_PRIORITY, MIN_TIMEOUT_MS } from '../../lib/engine/limits';
import { cliActor, intFlag, jsonFlag, parseFlags, positionals, subcommand } from '../args';
import { print, withContext } from '../context';
import { EXIT, UsageError } from '../errors';
import { formatSchedule, formatSchedules, untilNext } from '../format-schedules';
import { SUBCOMMANDS } from '../help';

const KIND_FLAGS = { handler: '--handler', sql: '--sql', procedure: '--procedure' } as const;
type Kind = keyof typeof KIND_FLAGS;

/** Request field (as ValidationError names it) → the flag that set it. */
const FIELD_FLAGS: Record<string, string> = {
  name: 'NAME',
  cron: '--cron',
  timezone: '--tz',
  queue: '--queue',
  priority: '--priority',
  maxAttempts: '--max-attempts',
  timeoutMs: '--timeout-ms',
  misfire: '--misfire',
  overlap: '--overlap',
};

/** A ValidationError from lib/api as a UsageError naming the flag that set the field. */
function asUsage(err: unknown, kind: Kind | null): unknown {
  if (!(err instanceof ValidationError)) return err;
  const message = err.message.slice(err.field.length + 2) || err.message;
  if (err.field === 'kind' || err.field === 'command') return new UsageError(kind ? KIND_FLAGS[kind] : '--handler', message);
  if (err.field === 'payload') return new UsageError(kind === 'procedure' ? '--params' : '--payload', message);
  const flag = FIELD_FLAGS[err.field];
  return flag ? new UsageError(flag, message) : err;
}

/** The NAME argument, checked with the API's own rule before the database is opened. */
function nameArg(rest: string[]): string {
  const name = positionals(rest, ['NAME'])[0]!;
  return name;
}

async function add(argv: string[]): Promise<number> {
  const { values, positionals: rest } = parseFlags({
    args: argv,
    options: {
      cron: { type: 'string' },
      tz: { type: 'string' },
      handler: { type: 'string' },
      sql: { type: 'string' },
      procedure: { type: 'string' },
      payload: { type: 'string' },
      params: { type: 'string' },
      queue: { type: 'string' },
      priority: { type: 'string' },
      'max-attempts': { type: 'string' },
      'timeout-ms': { type: 'string' },
      misfire: { type: 'string' },
      overlap: { type: 'string' },
      handlers: { type: 'string' },
      json: { type: 'boolean' },
    },
    strict: true,
    allowPositionals: true,
  });
  const name = nameArg(rest);
  if (values.cron === undefined) throw new UsageError('--cron', 'required (5 fields, or 6 with seconds first), e.g. --cron "*/5 * * * *"');
  const given = (Object.keys(KIND_FLAGS) as Kind[]).filter((k) => values[k] !== undefined);
  if (given.length === 0) throw new UsageError('--handler', 'required (or --sql TEXT, or --procedure NAME)');
  if (given.length > 1) throw new UsageError(KIND_FLAGS[given[0]!], `cannot be combined with ${KIND_FLAGS[given[1]!]}`);
  const kind = given[0]!;
  if (values.payload !== undefined && kind !== 'handler') {
    throw new UsageError('--payload', kind === 'procedure' ? 'give a procedure its parameters with --params JSON' : 'needs --handler');
  }
  if (values.params !== undefined && kind !== 'procedure') throw new UsageError('--params', 'needs --procedure');

  const request: Record<string, unknown> = { name, cron: values.cron, kind, command: values[kind] };
  if (values.tz !== undefined) request.timezone = values.tz;
  const payload = jsonFlag(kind === 'procedure' ? '--params' : '--payload', kind === 'procedure' ? values.params : values.payload);
  if (payload !== undefined) request.payload = payload;
  if (values.queue !== undefined) request.queue = values.queue;
  const priority = intFlag('--priority', values.priority, MIN_PRIORITY, MAX_PRIORITY);
  if (priority !== undefined) request.priority = priority;
  const maxAttempts = intFlag('--max-attempts', values['max-attempts'], MIN_ATTEMPTS, MAX_ATTEMPTS);
  if (maxAttempts !== undefined) request.maxAttempts = maxAttempts;
  const timeoutMs = intFlag('--timeout-ms', values['timeout-ms'], MIN_TIMEOUT_MS, MAX_TIMEOUT_MS);
  if (timeoutMs !== undefined) request.timeoutMs = timeoutMs;
  if (values.misfire !== undefined) {
    if (values.misfire !== 'skip' && values.misfire !== 'run_once') throw new UsageError('--misfire', 'skip or run_once');
    request.misfire = values.misfire;
  }
  if (values.overlap !== undefined) {
    if (values.overlap !== 'allow' && values.overlap !== 'skip_if_running') throw new UsageError('--overlap', 'allow or skip_if_running');
    request.overlap = values.overlap;
  }

  return withContext({ handlers: values.handlers }, async ({ readpast }) => {
    let s;
    try {
      s = await readpast.createSchedule(request, cliActor());
    } catch (err) {
      throw asUsage(err, kind);
    }
    print(
      values.json
        ? JSON.stringify(s, null, 2)
        : `schedule ${s.name} added: ${s.description} (${s.cron}, ${s.timezone}); next ${s.nextFireAt} (${untilNext(s.nextFireAt)})`,
    );
    return EXIT.ok;
  });
}

function jsonOnly(argv: string[], names: string[]): { json: boolean; args: string[] } {
  const { values, positionals: rest } = parseFlags({
    args: argv,
    options: { json: { type: 'boolean' } },
    strict: true,
    allowPositionals: true,
  });
  return { json: values.json === true, args: positionals(rest, names) };
}

async function list(argv: string[]): Promise<number> {
  const { json } = jsonOnly(argv, []);
  return withContext({}, async ({ readpast }) => {
    const r = await readpast.schedules();
    print(json ? JSON.stringify(r, null, 2) : formatSchedules(r.schedules));
    return EXIT.ok;
  });
}

async function show(argv: string[]): Promise<number> {
  const { json, args } = jsonOnly(argv, ['NAME']);
  return withContext({}, async ({ readpast }) => {
    let s;
    try {
      s = await readpast.schedule(args[0]!);
    } catch (err) {
      throw asUsage(err, null);
    }
    print(json ? JSON.stringify(s, null, 2) : formatSchedule(s));
    return EXIT.ok;
  });
}

/** pause, resume, run, remove: NAME and nothing else */
async function action(sub: 'pause' | 'resume' | 'run' | 'remove', argv: string[]): Promise<number> {
  const { json, args } = jsonOnly(argv, ['NAME']);
  const name = args[0]!;
  return withContext({}, async ({ readpast }) => {
    try {
      if (sub === 'run') {
        const r = await readpast.runSchedule(name, cliActor());
        // the token alone, as enqueue prints it: token=$(readpast schedule run NAME)
        print(json ? JSON.stringify(r, null, 2) : r.token);
      } else if (sub === 'remove') {
        const r = await readpast.deleteSchedule(name);
        print(json ? JSON.stringify(r, null, 2) : `schedule ${name} removed (the tasks it fired stay)`);
      } else {
        const s = sub === 'pause' ? await readpast.pauseSchedule(name, cliActor()) : await readpast.resumeSchedule(name, cliActor());
        print(
          json
            ? JSON.stringify(s, null, 2)
            : s.enabled
              ? `schedule ${name} resumed; next ${s.nextFireAt} (${untilNext(s.nextFireAt)})`
              : `schedule ${name} paused: it fires nothing until resumed`,
        );
      }
    } catch (err) {
      throw asUsage(err, null);
    }
    return EXIT.ok;
  });
}

export async function run(argv: string[]): Promise<number> {
  const [sub, rest] = subcommand(argv, SUBCOMMANDS.schedule);
  if (sub === 'add') return add(rest);
  if (sub === 'list') return list(rest);
  if (sub === 'show') return show(rest);
  return action(sub, rest);
}
