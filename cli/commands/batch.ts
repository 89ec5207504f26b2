// readpast batch create [--max-parallel N] [--on-failure continue|abort]   prints the id alone
// readpast batch status ID [--json] | release ID | cancel ID
// readpast batch wait ID [--stage K] [--timeout-s S] [--json]   exit 5 when the timeout passes first; a signal
//   or the parent's exit (cli/lifetime.ts) ends the wait: exit 130 / 143
import { ValidationError } from '../../lib/engine/errors';
import { MAX_BATCH_PARALLEL, MAX_STAGE, MIN_BATCH_PARALLEL, MIN_STAGE } from '../../lib/engine/limits';
import { batchIdArg, intFlag, parseFlags, positionals, subcommand } from '../args';
import { print, withContext } from '../context';
import { EXIT, UsageError } from '../errors';
import { SUBCOMMANDS } from '../help';
import { formatBatch, formatWaited } from '../format-batches';
import { stopExitCode, stopRequests } from '../lifetime';

export const MAX_WAIT_S = 7 * 24 * 3600;
const ON_FAILURE = ['continue', 'abort'] as const;

/** The single positional ID of `status`, `release`, `cancel` and `wait`. */
function idOf(rest: string[]): number {
  return batchIdArg(positionals(rest, ['ID'])[0]!);
}

async function create(argv: string[]): Promise<number> {
  const { values, positionals: rest } = parseFlags({
    args: argv,
    options: { 'max-parallel': { type: 'string' }, 'on-failure': { type: 'string' } },
    strict: true,
    allowPositionals: true,
  });
  positionals(rest, []);
  const request: { maxParallel?: number; onFailure?: (typeof ON_FAILURE)[number] } = {};
  const maxParallel = intFlag('--max-parallel', values['max-parallel'], MIN_BATCH_PARALLEL, MAX_BATCH_PARALLEL);
  if (maxParallel !== undefined) request.maxParallel = maxParallel;
  const onFailure = values['on-failure'];
  if (onFailure !== undefined) {
    if (!(ON_FAILURE as readonly string[]).includes(onFailure)) {
      throw new UsageError('--on-failure', `must be continue or abort (got ${JSON.stringify(onFailure.slice(0, 80))})`);
    }
    request.onFailure = onFailure as (typeof ON_FAILURE)[number];
  }
  return withContext({}, async ({ readpast }) => {
    let batch;
    try {
      batch = await readpast.createBatch(request, 'cli');
    } catch (err) {
      if (err instanceof ValidationError) {
        throw new UsageError(err.field === 'onFailure' ? '--on-failure' : '--max-parallel', err.message.slice(err.field.length + 2));
      }
      throw err;
    }
    print(String(batch.id));
    return EXIT.ok;
  });
}

async function status(argv: string[]): Promise<number> {
  const { values, positionals: rest } = parseFlags({
    args: argv,
    options: { json: { type: 'boolean' } },
    strict: true,
    allowPositionals: true,
  });
  const id = idOf(rest);
  return withContext({}, async ({ readpast }) => {
    const batch = await readpast.batch(id);
    print(values.json ? JSON.stringify(batch, null, 2) : formatBatch(batch));
    return EXIT.ok;
  });
}

async function release(argv: string[]): Promise<number> {
  const { positionals: rest } = parseFlags({ args: argv, options: {}, strict: true, allowPositionals: true });
  const id = idOf(rest);
  return withContext({}, async ({ readpast }) => {
    const batch = await readpast.releaseBatch(id);
    print(
      `released batch ${id} (${batch.status}; ${batch.totals.total} task(s), ${batch.totals.pending + batch.totals.running} unfinished)`,
    );
    return EXIT.ok;
  });
}

async function cancel(argv: string[]): Promise<number> {
  const { positionals: rest } = parseFlags({ args: argv, options: {}, strict: true, allowPositionals: true });
  const id = idOf(rest);
  return withContext({}, async ({ readpast }) => {
    const r = await readpast.cancelBatch(id);
    const running = r.batch.totals.running;
    print(`cancelled batch ${id}: ${r.cancelled} task(s) cancelled${running > 0 ? `, ${running} running asked to stop` : ''}`);
    return EXIT.ok;
  });
}

async function wait(argv: string[]): Promise<number> {
  const { values, positionals: rest } = parseFlags({
    args: argv,
    options: { stage: { type: 'string' }, 'timeout-s': { type: 'string' }, json: { type: 'boolean' } },
    strict: true,
    allowPositionals: true,
  });
  const id = idOf(rest);
  const stage = intFlag('--stage', values.stage, MIN_STAGE, MAX_STAGE);
  const timeoutS = intFlag('--timeout-s', values['timeout-s'], 0, MAX_WAIT_S);
  return withContext({}, async ({ readpast }) => {
    const stop = stopRequests();
    let r: Awaited<ReturnType<typeof readpast.waitBatch>>;
    try {
      r = await readpast.waitBatch(id, {
        ...(stage === undefined ? {} : { stage }),
        ...(timeoutS === undefined ? {} : { timeoutMs: timeoutS * 1000 }),
        signal: stop.signal,
      });
    } finally {
      stop.dispose();
    }
    if (!r.done && stop.signal.aborted) {
      const reason = await stop.requested;
      process.stderr.write(`readpast batch wait: stopped (${'signal' in reason ? reason.signal : 'its parent process exited'})\n`);
      return stopExitCode(reason);
    }
    if (values.json) print(JSON.stringify(r, null, 2));
    else print(r.done ? formatWaited(r.batch, r.tasks, stage) : formatBatch(r.batch));
    if (r.done) return EXIT.ok;
    const what = stage === undefined ? `batch ${id}` : `stage ${stage} of batch ${id}`;
    process.stderr.write(`readpast batch wait: ${what} not finished after ${timeoutS} s (exit ${EXIT.timeout})\n`);
    return EXIT.timeout;
  });
}

export async function run(argv: string[]): Promise<number> {
  const [sub, rest] = subcommand(argv, SUBCOMMANDS.batch);
  switch (sub) {
    case 'create':
      return create(rest);
    case 'status':
      return status(rest);
    case 'release':
      return release(rest);
    case 'cancel':
      return cancel(rest);
    case 'wait':
      return wait(rest);
  }
}
