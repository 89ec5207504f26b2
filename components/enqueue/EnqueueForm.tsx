'use client';
// Enqueue a handler task (payload JSON checked as you type), a sql task, or (SQL Server) a procedure task.
import { FieldError } from '../ui/FieldError';
import { useCanOperate } from '../role';
import Link from 'next/link';
import { useMemo, useState } from 'react';
import { enqueueTask } from '@/app/actions';
import {
  MAX_ATTEMPTS,
  MAX_PRIORITY,
  MAX_TIMEOUT_MS,
  MIN_ATTEMPTS,
  MIN_PRIORITY,
  MIN_TIMEOUT_MS,
  QUEUE_NAME_RULE,
} from '@/lib/engine/limits';
import type { StatsJson } from '../api';
import { localInputToIso } from '../format';
import { useLive } from '../live';
import { useAction } from '../useAction';
import { inputCls, labelCls } from '../log/LogFilters';
import { Button } from '../ui/Button';
import { Card } from '../ui/Card';
import { Notice } from '../ui/States';
import { cx } from '../ui/cx';
import { checkInt, checkJson, EXAMPLES, QUEUE_RE, shortened } from './fields';
import { DemoHelp } from './DemoHelp';
import { MAX_KEY_CHARS, OptionalText } from './OptionalText';
import { usePostTask } from './postTask';
import { ProcedureFields, ProcedureHelp, useProcedureForm } from './ProcedureFields';
import { RunAfter, runAfterOf, type ParentPolicy } from './RunAfter';
import { useStoreInfo } from './storeInfo';

type Kind = 'handler' | 'sql' | 'procedure';

const TAB_LABELS: Record<Kind, string> = { handler: 'Handler task', sql: 'SQL task', procedure: 'Procedure' };

function EnqueueFormControl() {
  const [kind, setKind] = useState<Kind>('handler');
  const [command, setCommand] = useState('');
  const [payload, setPayload] = useState('');
  const [sql, setSql] = useState('');
  const [queue, setQueue] = useState('default');
  const [priority, setPriority] = useState('0');
  const [runAt, setRunAt] = useState('');
  const [maxAttempts, setMaxAttempts] = useState('');
  const [timeoutMs, setTimeoutMs] = useState('');
  const [dedupKey, setDedupKey] = useState('');
  const [concurrencyKey, setConcurrencyKey] = useState('');
  const [after, setAfter] = useState('');
  const [policy, setPolicy] = useState<ParentPolicy>('cancel');
  const [serverError, setServerError] = useState<{ error: string; field?: string } | null>(null);
  const [done, setDone] = useState<{ token: string; command: string } | null>(null);

  const handlers = useStoreInfo();
  // the Procedure tab only where the database can run procedure tasks (SQL Server)
  const tabs: Kind[] = handlers.data?.kinds.includes('procedure') ? ['handler', 'sql', 'procedure'] : ['handler', 'sql'];
  const proc = useProcedureForm(kind === 'procedure');
  const stats = useLive<StatsJson>(['stats'], '/api/stats');
  const names = handlers.data?.handlers ?? [];
  const handler = command || names[0] || '';

  const json = useMemo(() => checkJson(payload), [payload]);
  const prio = checkInt(priority, MIN_PRIORITY, MAX_PRIORITY);
  const attempts = checkInt(maxAttempts, MIN_ATTEMPTS, MAX_ATTEMPTS);
  const timeout = checkInt(timeoutMs, MIN_TIMEOUT_MS, MAX_TIMEOUT_MS);
  const queueError = QUEUE_RE.test(queue) ? null : QUEUE_NAME_RULE;
  const commandError =
    kind === 'handler'
      ? handler
        ? null
        : 'choose a handler'
      : kind === 'procedure'
        ? proc.error
        : sql.trim()
          ? null
          : 'SQL text is required';
  const tooLong = [dedupKey, concurrencyKey].some((k) => k.trim().length > MAX_KEY_CHARS);
  const parents = useMemo(() => runAfterOf(after), [after]);
  const invalid =
    !!parents.error || tooLong || !json.ok || !!prio.error || !!attempts.error || !!timeout.error || !!queueError || !!commandError;

  const submit = useAction(enqueueTask, { toastErrors: false });
  const viaApi = usePostTask();

  const onSubmit = async () => {
    if (invalid || !json.ok) return;
    setServerError(null);
    setDone(null);
    const input: Record<string, unknown> = {
      kind,
      command: kind === 'handler' ? handler : kind === 'procedure' ? (proc.loaded ?? '') : sql,
      queue,
      priority: prio.value ?? 0,
    };
    if (kind === 'handler' && json.value !== undefined) input.payload = json.value;
    if (kind === 'procedure') input.payload = proc.payload;
    const at = localInputToIso(runAt);
    if (at) input.runAt = at;
    if (attempts.value !== undefined) input.maxAttempts = attempts.value;
    if (timeout.value !== undefined) input.timeoutMs = timeout.value;
    if (dedupKey.trim()) input.dedupKey = dedupKey.trim();
    if (concurrencyKey.trim()) input.concurrencyKey = concurrencyKey.trim();
    if (parents.tokens.length) {
      input.dependsOn = parents.tokens;
      if (policy !== 'cancel') input.onParentFailure = policy;
    }
    const r = kind === 'procedure' ? await viaApi.run(input) : await submit.run(input);
    if (r.ok) setDone({ token: r.token, command: String(input.command) });
    else setServerError({ error: r.error, field: r.field });
  };

  const fieldErr = (name: string) => (serverError?.field === name ? serverError.error : null);
  const example = EXAMPLES[handler];

  return (
    <div className="grid gap-5 lg:grid-cols-3">
      <Card className="lg:col-span-2">
        <form
          data-testid="enqueue-form"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            void onSubmit();
          }}
        >
          <div role="tablist" aria-label="Task kind" className="flex gap-1 border-b border-slate-100 px-4 pt-3">
            {tabs.map((k) => (
              <button
                key={k}
                type="button"
                role="tab"
                aria-selected={kind === k}
                data-testid={`tab-${k}`}
                onClick={() => {
                  setKind(k);
                  setServerError(null);
                }}
                className={cx(
                  '-mb-px border-b-2 px-3 py-2 text-sm font-medium',
                  kind === k ? 'border-brand-600 text-brand-700' : 'border-transparent text-slate-500 hover:text-slate-800',
                )}
              >
                {TAB_LABELS[k]}
              </button>
            ))}
          </div>

          <div className="space-y-4 p-4">
            {kind === 'procedure' ? (
              <ProcedureFields form={proc} serverError={serverError} onEdit={() => setServerError(null)} />
            ) : kind === 'handler' ? (
              <>
                <div>
                  <label htmlFor="e-handler" className={labelCls}>
                    Handler
                  </label>
                  <select
                    id="e-handler"
                    data-testid="enqueue-handler"
                    className={inputCls}
                    value={handler}
                    onChange={(e) => setCommand(e.target.value)}
                    disabled={handlers.isPending}
                  >
                    {handlers.isPending && <option>loading…</option>}
                    {names.map((n) => (
                      <option key={n} value={n}>
                        {n}
                      </option>
                    ))}
                  </select>
                  {handlers.isError && <FieldError id="handlers-error">{`could not load handlers: ${handlers.error.message}`}</FieldError>}
                  <FieldError id="error-command">{fieldErr('command')}</FieldError>
                </div>
                <div>
                  <div className="flex items-end justify-between">
                    <label htmlFor="e-payload" className={labelCls}>
                      Payload (JSON, optional)
                    </label>
                    {example !== undefined && (
                      <button
                        type="button"
                        className="mb-1 text-xs text-brand-600 hover:underline"
                        onClick={() => setPayload(JSON.stringify(example, null, 2))}
                      >
                        insert example
                      </button>
                    )}
                  </div>
                  <textarea
                    id="e-payload"
                    data-testid="enqueue-payload"
                    rows={8}
                    spellCheck={false}
                    aria-invalid={!json.ok}
                    aria-describedby="payload-error"
                    placeholder={example !== undefined ? JSON.stringify(example) : '{ }'}
                    value={payload}
                    onChange={(e) => setPayload(e.target.value)}
                    className={cx(inputCls, 'font-mono text-xs', !json.ok && 'ring-2 ring-rose-400 focus:ring-rose-500')}
                  />
                  {!json.ok ? (
                    <FieldError id="payload-error">{`Invalid JSON: ${json.error}`}</FieldError>
                  ) : (
                    <p className="mt-1 text-xs text-slate-400" id="payload-error">
                      {payload.trim() ? 'valid JSON' : 'empty: no payload'}
                    </p>
                  )}
                  <FieldError id="error-payload">{fieldErr('payload')}</FieldError>
                </div>
              </>
            ) : (
              <div>
                <label htmlFor="e-sql" className={labelCls}>
                  SQL batch (runs on the worker&apos;s own session)
                </label>
                <textarea
                  id="e-sql"
                  data-testid="enqueue-sql"
                  rows={8}
                  spellCheck={false}
                  placeholder="UPDATE dbo.Orders SET Archived = 1 WHERE OrderDate < '2020-01-01';"
                  value={sql}
                  onChange={(e) => setSql(e.target.value)}
                  className={cx(inputCls, 'font-mono text-xs')}
                />
                <p className="mt-1 text-xs text-slate-400">
                  The dashboard accepts sql tasks only when the server runs with READPAST_ALLOW_SQL=1.
                </p>
                <FieldError id="error-command">{fieldErr('command')}</FieldError>
              </div>
            )}

            <div className="grid grid-cols-2 gap-4 sm:grid-cols-3">
              <div>
                <label htmlFor="e-queue" className={labelCls}>
                  Queue
                </label>
                <input
                  id="e-queue"
                  data-testid="enqueue-queue"
                  list="queue-names"
                  className={inputCls}
                  value={queue}
                  onChange={(e) => setQueue(e.target.value)}
                />
                <datalist id="queue-names">
                  {stats.data?.queues.map((x) => (
                    <option key={x.queue} value={x.queue} />
                  ))}
                </datalist>
                <FieldError id="error-queue">{queueError ?? fieldErr('queue')}</FieldError>
              </div>
              <div>
                <label htmlFor="e-priority" className={labelCls}>
                  Priority (higher first)
                </label>
                <input
                  id="e-priority"
                  data-testid="enqueue-priority"
                  type="number"
                  inputMode="numeric"
                  className={inputCls}
                  value={priority}
                  onChange={(e) => setPriority(e.target.value)}
                />
                <FieldError id="error-priority">{prio.error ?? fieldErr('priority')}</FieldError>
              </div>
              <div className="col-span-2 sm:col-span-1">
                <label htmlFor="e-runat" className={labelCls}>
                  Run at (local time)
                </label>
                <input
                  id="e-runat"
                  data-testid="enqueue-runat"
                  type="datetime-local"
                  step={1}
                  className={inputCls}
                  value={runAt}
                  onChange={(e) => setRunAt(e.target.value)}
                />
                <FieldError id="error-runAt">{fieldErr('runAt')}</FieldError>
              </div>
              <div>
                <label htmlFor="e-attempts" className={labelCls}>
                  Max attempts
                </label>
                <input
                  id="e-attempts"
                  data-testid="enqueue-max-attempts"
                  type="number"
                  inputMode="numeric"
                  placeholder="queue default"
                  className={inputCls}
                  value={maxAttempts}
                  onChange={(e) => setMaxAttempts(e.target.value)}
                />
                <FieldError id="error-maxAttempts">{attempts.error ?? fieldErr('maxAttempts')}</FieldError>
              </div>
              <div>
                <label htmlFor="e-timeout" className={labelCls}>
                  Timeout (ms)
                </label>
                <input
                  id="e-timeout"
                  data-testid="enqueue-timeout"
                  type="number"
                  inputMode="numeric"
                  placeholder="queue default"
                  className={inputCls}
                  value={timeoutMs}
                  onChange={(e) => setTimeoutMs(e.target.value)}
                />
                <FieldError id="error-timeoutMs">{timeout.error ?? fieldErr('timeoutMs')}</FieldError>
              </div>
              {[
                { id: 'e-dedup', field: 'dedupKey', label: 'Dedup key (optional)', value: dedupKey, set: setDedupKey },
                {
                  id: 'e-key',
                  field: 'concurrencyKey',
                  label: 'Concurrency key (optional)',
                  value: concurrencyKey,
                  set: setConcurrencyKey,
                },
              ].map((f) => (
                <OptionalText key={f.id} {...f} serverError={fieldErr(f.field)} />
              ))}
            </div>

            <RunAfter
              text={after}
              policy={policy}
              onText={setAfter}
              onPolicy={setPolicy}
              serverError={serverError?.field?.startsWith('dependsOn') ? serverError.error : null}
            />

            {serverError && (
              <Notice tone="error" testId="enqueue-error">
                Not enqueued: {serverError.error}
              </Notice>
            )}
            {done && (
              <Notice tone="success" testId="enqueue-success">
                Enqueued <span className="font-mono">{shortened(done.command)}</span> as{' '}
                <Link href={`/tasks/${done.token}`} className="font-mono font-semibold underline" data-testid="enqueue-token">
                  {done.token}
                </Link>
              </Notice>
            )}
          </div>

          <div className="flex items-center justify-end gap-3 border-t border-slate-100 px-4 py-3">
            {invalid && (
              <span className="text-xs text-slate-500" data-testid="enqueue-blocked">
                {kind === 'procedure' && proc.error && commandError === proc.error
                  ? `Not yet: ${proc.error}.`
                  : 'Fix the highlighted fields to enqueue.'}
              </span>
            )}
            <Button type="submit" variant="primary" disabled={invalid} busy={submit.busy || viaApi.busy} data-testid="enqueue-submit">
              Enqueue task
            </Button>
          </div>
        </form>
      </Card>

      <aside className="space-y-3 text-sm text-slate-600">
        {kind === 'procedure' ? (
          <Card className="p-4">
            <ProcedureHelp />
          </Card>
        ) : (
          <DemoHelp />
        )}
        <p className="px-1 text-xs">
          Failed attempts are retried with exponential backoff until max attempts; then the task is dead and shows on{' '}
          <Link className="text-brand-600 hover:underline" href="/failed">
            Failed &amp; poison
          </Link>
          .
        </p>
      </aside>
    </div>
  );
}

/** the operator's control; a viewer sees the value */
export function EnqueueForm(props: {}) {
  return useCanOperate() ? (
    <EnqueueFormControl {...props} />
  ) : (
    <p className="rounded-md bg-slate-50 p-4 text-sm text-slate-600" data-testid="viewer-notice">
      You are signed in as a viewer: enqueueing needs the operator.
    </p>
  );
}
