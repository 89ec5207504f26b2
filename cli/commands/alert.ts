// readpast alert add NAME --kind KIND --url URL [--queue Q] [--command C] [--schedule S] [--threshold-s N]
//                  [--count N] [--secret S | --secret-env VAR] [--format json|slack] [--dedup-s N] [--disabled] [--json]
// readpast alert list [--json]
// readpast alert show NAME|ID [--json]
// readpast alert test NAME|ID [--json]
// readpast alert remove NAME|ID [--json]
import { ValidationError } from '../../lib/engine/errors';
import { ALERT_KINDS, MAX_STREAK } from '../../lib/engine/alert-types';
import type { Readpast } from '../../lib/api/readpast';
import { intFlag, parseFlags, positionals, subcommand } from '../args';
import { print, withContext } from '../context';
import { EXIT, UsageError } from '../errors';
import { formatAlertRule, formatAlertRules } from '../format-alerts';
import { NotFoundError } from '../../lib/engine/errors';
import { SUBCOMMANDS } from '../help';

/** Request field (as ValidationError names it) → the flag that set it. */
const FIELD_FLAGS: Record<string, string> = {
  name: 'NAME',
  id: 'NAME|ID',
  kind: '--kind',
  url: '--url',
  queue: '--queue',
  command: '--command',
  schedule: '--schedule',
  thresholdMs: '--threshold-s',
  count: '--count',
  secret: '--secret',
  format: '--format',
  dedupMs: '--dedup-s',
};

function asUsage(err: unknown): unknown {
  if (!(err instanceof ValidationError)) return err;
  const message = err.message.slice(err.field.length + 2) || err.message;
  const flag = FIELD_FLAGS[err.field];
  return flag ? new UsageError(flag, message) : err;
}

async function add(argv: string[]): Promise<number> {
  const { values, positionals: rest } = parseFlags({
    args: argv,
    options: {
      kind: { type: 'string' },
      url: { type: 'string' },
      queue: { type: 'string' },
      command: { type: 'string' },
      schedule: { type: 'string' },
      'threshold-s': { type: 'string' },
      count: { type: 'string' },
      secret: { type: 'string' },
      'secret-env': { type: 'string' },
      format: { type: 'string' },
      'dedup-s': { type: 'string' },
      disabled: { type: 'boolean' },
      json: { type: 'boolean' },
    },
    strict: true,
    allowPositionals: true,
  });
  const [name] = positionals(rest, ['NAME']);
  if (values.kind === undefined) throw new UsageError('--kind', `required (one of ${ALERT_KINDS.join(', ')})`);
  if (!(ALERT_KINDS as readonly string[]).includes(values.kind)) throw new UsageError('--kind', `one of ${ALERT_KINDS.join(', ')}`);
  if (values.url === undefined) throw new UsageError('--url', 'required (the webhook, http:// or https://)');
  if (values.secret !== undefined && values['secret-env'] !== undefined)
    throw new UsageError('--secret', 'cannot be combined with --secret-env');
  let secret = values.secret;
  if (values['secret-env'] !== undefined) {
    secret = process.env[values['secret-env']];
    if (!secret) throw new UsageError('--secret-env', `environment variable ${values['secret-env']} is not set`);
  }
  const request: Record<string, unknown> = { name, kind: values.kind, url: values.url, enabled: values.disabled !== true };
  if (values.queue !== undefined) request.queue = values.queue;
  if (values.command !== undefined) request.command = values.command;
  if (values.schedule !== undefined) request.schedule = values.schedule;
  const threshold = intFlag('--threshold-s', values['threshold-s'], 1, 30 * 24 * 3600);
  if (threshold !== undefined) request.thresholdMs = threshold * 1000;
  const count = intFlag('--count', values.count, 1, MAX_STREAK);
  if (count !== undefined) request.count = count;
  if (secret !== undefined) request.secret = secret;
  if (values.format !== undefined) {
    if (values.format !== 'json' && values.format !== 'slack') throw new UsageError('--format', 'json or slack');
    request.format = values.format;
  }
  const dedup = intFlag('--dedup-s', values['dedup-s'], 0, 7 * 24 * 3600);
  if (dedup !== undefined) request.dedupMs = dedup * 1000;

  return withContext({}, async ({ readpast }) => {
    let r;
    try {
      r = await readpast.alerts.create(request);
    } catch (err) {
      throw asUsage(err);
    }
    print(values.json ? JSON.stringify(r, null, 2) : `alert rule ${r.name} added (id ${r.id}): ${r.kindLabel} → ${r.url}`);
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

/** a rule's id from its id or its name */
async function ruleId(readpast: Readpast, arg: string): Promise<number> {
  if (/^\d+$/.test(arg)) return Number(arg);
  const r = (await readpast.alerts.list()).rules.find((x) => x.name === arg);
  if (!r) throw new NotFoundError(`no alert rule ${arg}`);
  return r.id;
}

async function list(argv: string[]): Promise<number> {
  const { json } = jsonOnly(argv, []);
  return withContext({}, async ({ readpast }) => {
    const r = await readpast.alerts.list();
    print(json ? JSON.stringify(r, null, 2) : formatAlertRules(r.rules));
    return EXIT.ok;
  });
}

async function action(sub: 'show' | 'test' | 'remove', argv: string[]): Promise<number> {
  const { json, args } = jsonOnly(argv, ['NAME|ID']);
  return withContext({}, async ({ readpast }) => {
    try {
      const id = await ruleId(readpast, args[0]!);
      if (sub === 'show') {
        const r = await readpast.alerts.show(id);
        print(json ? JSON.stringify(r, null, 2) : formatAlertRule(r));
      } else if (sub === 'test') {
        const r = await readpast.alerts.test(id);
        // the delivery task's token alone, as enqueue prints it: readpast status $(readpast alert test NAME)
        print(json ? JSON.stringify(r, null, 2) : r.token);
      } else {
        const r = await readpast.alerts.remove(id);
        print(json ? JSON.stringify(r, null, 2) : `alert rule ${args[0]} removed (its firings stay in the history)`);
      }
    } catch (err) {
      throw asUsage(err);
    }
    return EXIT.ok;
  });
}

export async function run(argv: string[]): Promise<number> {
  const [sub, rest] = subcommand(argv, SUBCOMMANDS.alert);
  if (sub === 'add') return add(rest);
  if (sub === 'list') return list(rest);
  return action(sub, rest);
}
