// Argument parsing on node:util parseArgs (strict), with errors that name the flag.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { MAX_QUEUE_NAME_LENGTH, QUEUE_NAME_CHARS } from '../lib/engine/limits';
import { queueName, token as tokenSchema } from '../lib/engine/validation';
import { UsageError } from './errors';

interface NodeError extends Error {
  code?: string;
}

/** parseArgs errors → UsageError naming the flag. */
export function toUsageError(err: unknown): unknown {
  const e = err as NodeError;
  if (!(e instanceof Error) || typeof e.code !== 'string' || !e.code.startsWith('ERR_PARSE_ARGS')) return err;
  const flag = /'(-{1,2}[^'\s=]+)/.exec(e.message)?.[1] ?? null;
  const longFlag = flag?.startsWith('--') ? flag : null;
  switch (e.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      // `batch status -1`: a negative number is read as an option before any value check sees it
      if (flag !== null && /^-\d/.test(flag)) {
        return new UsageError(null, `${flag} is not an option and not a value this command takes (ids and counts are positive)`);
      }
      return new UsageError(flag, 'unknown option');
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      if (/argument missing/.test(e.message)) return new UsageError(flag, 'needs a value');
      if (/does not take an argument/.test(e.message)) return new UsageError(flag, 'takes no value');
      if (/ambiguous/.test(e.message)) {
        return new UsageError(flag, `the value starts with '-'; write it as ${longFlag ?? '--flag'}=VALUE`);
      }
      return new UsageError(flag, 'invalid value');
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return new UsageError(null, `unexpected argument${flag ? ` ${flag}` : ''}`);
    default:
      return new UsageError(flag, e.message);
  }
}

/** parseArgs with strict checking; positionals are allowed and checked by the caller. */
export function parseFlags<const T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (err) {
    throw toUsageError(err);
  }
}

/** The positional arguments a command expects, by name (e.g. `TOKEN`); errors on missing or extra ones. */
export function positionals(given: string[], names: string[]): string[] {
  if (given.length < names.length) throw new UsageError(names[given.length]!, 'missing');
  if (given.length > names.length) {
    throw new UsageError(null, `unexpected argument ${JSON.stringify(given[names.length])}`);
  }
  return given;
}

/** An integer flag value (decimal digits, optional sign) within [min, max]; undefined when absent. */
export function intFlag(flag: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (!/^[+-]?\d+$/.test(text)) throw new UsageError(flag, `must be an integer from ${min} to ${max} (got ${JSON.stringify(value)})`);
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new UsageError(flag, `must be an integer from ${min} to ${max} (got ${value})`);
  }
  return n;
}

/** A JSON flag value; undefined when absent. */
export function jsonFlag(flag: string, value: string | undefined): unknown {
  if (value === undefined) return undefined;
  try {
    return JSON.parse(value);
  } catch (err) {
    throw new UsageError(flag, `invalid JSON (${err instanceof Error ? err.message : String(err)})`);
  }
}

/** What a queue name may be, in the words of the queue-name errors. */
const QUEUE_NAME_HINT = `${QUEUE_NAME_CHARS}, max ${MAX_QUEUE_NAME_LENGTH}`;

/** A comma-separated list of queue names; undefined when absent. */
export function queuesFlag(flag: string, value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const names = value.split(',').map((s) => s.trim());
  for (const name of names) {
    if (!queueName.safeParse(name).success) {
      throw new UsageError(flag, `${JSON.stringify(name)} is not a queue name (${QUEUE_NAME_HINT})`);
    }
  }
  return [...new Set(names)];
}

/** A task token (uuid), checked before the database is opened; `name` is the argument or flag named in errors. */
export function tokenArg(value: string, name = 'TOKEN'): string {
  if (!tokenSchema.safeParse(value).success) throw new UsageError(name, `not a task token (uuid): ${JSON.stringify(value.slice(0, 80))}`);
  return value.toLowerCase();
}

/** A queue name given as an argument (`NAME`), checked before the database is opened. */
export function queueArg(value: string, name = 'NAME'): string {
  if (!queueName.safeParse(value).success) {
    throw new UsageError(name, `${JSON.stringify(value.slice(0, 80))} is not a queue name (${QUEUE_NAME_HINT})`);
  }
  return value;
}

/** A batch id (a positive integer) given as an argument or flag value. */
export function batchIdArg(value: string, name = 'ID'): number {
  return rowIdArg(value, name, 'batch');
}

/** A flow id (a positive integer) given as an argument or flag value. */
export function flowIdArg(value: string, name = 'ID'): number {
  return rowIdArg(value, name, 'flow');
}

function rowIdArg(value: string, name: string, what: string): number {
  const n = /^\d{1,15}$/.test(value.trim()) ? Number(value.trim()) : NaN;
  if (!Number.isSafeInteger(n) || n < 1)
    throw new UsageError(name, `not a ${what} id (a positive integer): ${JSON.stringify(value.slice(0, 80))}`);
  return n;
}

/** The first argument of a command with subcommands (`queue set`, `batch wait`); errors name SUBCOMMAND. */
export function subcommand<const T extends string>(argv: string[], names: readonly T[]): [T, string[]] {
  const [first, ...rest] = argv;
  if (first === undefined || first.startsWith('-')) throw new UsageError('SUBCOMMAND', `missing (one of ${names.join(', ')})`);
  if (!(names as readonly string[]).includes(first)) {
    throw new UsageError('SUBCOMMAND', `unknown ${JSON.stringify(first.slice(0, 80))} (one of ${names.join(', ')})`);
  }
  return [first as T, rest];
}

/** Who a change made from the command line is recorded as made by: `cli:$USER`, or `cli`. */
export function cliActor(env: NodeJS.ProcessEnv = process.env): string {
  const user = env.USER?.trim();
  return user ? `cli:${user}` : 'cli';
}
