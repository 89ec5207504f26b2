// readpast enqueue (--handler NAME | --sql TEXT | --procedure NAME) [options] [--batch ID [--stage K]]
//   [--after TOKEN]… [--on-parent-failure cancel|run|wait] — prints the token alone. TRACEPARENT (and TRACESTATE)
//   in the environment: the trace the task continues.
import { NotFoundError, ValidationError } from '../../lib/engine/errors';
import {
  MAX_ATTEMPTS,
  MAX_PRIORITY,
  MAX_STAGE,
  MAX_TIMEOUT_MS,
  MIN_ATTEMPTS,
  MIN_PRIORITY,
  MIN_STAGE,
  MIN_TIMEOUT_MS,
} from '../../lib/engine/limits';
import { PARENT_FAILURE_POLICIES } from '../../lib/engine/types';
import { batchIdArg, intFlag, jsonFlag, parseFlags, positionals, tokenArg } from '../args';
import { envTrace, print, withContext } from '../context';
import { EXIT, UsageError } from '../errors';

const KIND_FLAGS = { handler: '--handler', sql: '--sql', procedure: '--procedure' } as const;
type Kind = keyof typeof KIND_FLAGS;

/** Request field (as ValidationError names it) → the flag that set it. */
const FIELD_FLAGS: Record<string, string> = {
  payload: '--payload',
  queue: '--queue',
  priority: '--priority',
  runAt: '--run-at',
  maxAttempts: '--max-attempts',
  timeoutMs: '--timeout-ms',
  dedupKey: '--dedup-key',
  concurrencyKey: '--key',
  batchId: '--batch',
  stage: '--stage',
  dependsOn: '--after',
  onParentFailure: '--on-parent-failure',
};

/** `dependsOn.2` → `--after` (the third one given), as the flag names it */
function flagOf(field: string): string | undefined {
  return FIELD_FLAGS[field] ?? (/^dependsOn\.\d+$/.test(field) ? '--after' : undefined);
}

export async function run(argv: string[]): Promise<number> {
  const { values, positionals: rest } = parseFlags({
    args: argv,
    options: {
      handler: { type: 'string' },
      sql: { type: 'string' },
      procedure: { type: 'string' },
      payload: { type: 'string' },
      queue: { type: 'string' },
      priority: { type: 'string' },
      'max-attempts': { type: 'string' },
      'run-at': { type: 'string' },
      'timeout-ms': { type: 'string' },
      'dedup-key': { type: 'string' },
      key: { type: 'string' },
      batch: { type: 'string' },
      stage: { type: 'string' },
      after: { type: 'string', multiple: true },
      'on-parent-failure': { type: 'string' },
      handlers: { type: 'string' },
    },
    strict: true,
    allowPositionals: true,
  });
  positionals(rest, []);

  const given = (Object.keys(KIND_FLAGS) as Kind[]).filter((k) => values[k] !== undefined);
  if (given.length === 0) throw new UsageError('--handler', 'required (or --sql TEXT, or --procedure NAME)');
  if (given.length > 1) throw new UsageError(KIND_FLAGS[given[0]!], `cannot be combined with ${KIND_FLAGS[given[1]!]}`);
  const kind = given[0]!;

  const request: Record<string, unknown> = { kind, command: values[kind] };
  const payload = jsonFlag('--payload', values.payload);
  if (payload !== undefined) request.payload = payload;
  if (values.queue !== undefined) request.queue = values.queue;
  const priority = intFlag('--priority', values.priority, MIN_PRIORITY, MAX_PRIORITY);
  if (priority !== undefined) request.priority = priority;
  const maxAttempts = intFlag('--max-attempts', values['max-attempts'], MIN_ATTEMPTS, MAX_ATTEMPTS);
  if (maxAttempts !== undefined) request.maxAttempts = maxAttempts;
  const timeoutMs = intFlag('--timeout-ms', values['timeout-ms'], MIN_TIMEOUT_MS, MAX_TIMEOUT_MS);
  if (timeoutMs !== undefined) request.timeoutMs = timeoutMs;
  if (values['run-at'] !== undefined) request.runAt = values['run-at'];
  if (values['dedup-key'] !== undefined) request.dedupKey = values['dedup-key'];
  if (values.key !== undefined) request.concurrencyKey = values.key;
  if (values.batch !== undefined) request.batchId = batchIdArg(values.batch, '--batch');
  const stage = intFlag('--stage', values.stage, MIN_STAGE, MAX_STAGE);
  if (stage !== undefined) {
    if (request.batchId === undefined) throw new UsageError('--stage', 'needs --batch ID');
    request.stage = stage;
  }
  if (values.after !== undefined) request.dependsOn = values.after.map((t) => tokenArg(t, '--after'));
  const policy = values['on-parent-failure'];
  if (policy !== undefined) {
    if (!(PARENT_FAILURE_POLICIES as readonly string[]).includes(policy)) {
      throw new UsageError('--on-parent-failure', `must be cancel, run or wait (got ${JSON.stringify(policy.slice(0, 80))})`);
    }
    if (request.dependsOn === undefined) throw new UsageError('--on-parent-failure', 'needs --after TOKEN');
    request.onParentFailure = policy;
  }

  return withContext({ handlers: values.handlers }, async ({ readpast }) => {
    let result;
    try {
      result = await readpast.enqueue(request, { caller: 'cli', ...envTrace() });
    } catch (err) {
      if (err instanceof ValidationError) {
        if (err.field === 'batchId' && /no batch/.test(err.message)) throw new NotFoundError(`--batch: no batch ${request.batchId}`);
        const flag = err.field === 'kind' || err.field === 'command' ? KIND_FLAGS[kind] : flagOf(err.field);
        if (flag === '--run-at')
          throw new UsageError(
            flag,
            `must be an ISO-8601 time with a zone, e.g. 2030-01-01T09:00:00Z (got ${JSON.stringify(values['run-at'])})`,
          );
        if (flag) throw new UsageError(flag, err.message.slice(err.field.length + 2));
      }
      throw err;
    }
    if (!result.created) process.stderr.write(`readpast enqueue: an unfinished task with this dedup key exists; its token follows\n`);
    print(result.token);
    return EXIT.ok;
  });
}
