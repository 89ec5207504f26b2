'use client';
// Create or edit a schedule. The expression and zone are checked as you type with the server's own
// rules (lib/engine/schedules.ts runs in the browser too), with the expression in words and the next
// five fire times in the chosen zone; the server checks everything again on save, naming the field.
import { errCls, FieldError } from '../ui/FieldError';
import { useId, useMemo, useState } from 'react';
import { saveSchedule } from '@/app/actions';
import {
  MAX_ATTEMPTS,
  MAX_PRIORITY,
  MAX_TIMEOUT_MS,
  MIN_ATTEMPTS,
  MIN_PRIORITY,
  MIN_TIMEOUT_MS,
  QUEUE_NAME_RULE,
} from '@/lib/engine/limits';
import { canonicalZone, cronProblem, describeCron, nextFires } from '@/lib/engine/schedules';
import { checkInt, checkJson, QUEUE_RE } from '../enqueue/fields';
import { useStoreInfo } from '../enqueue/storeInfo';
import { inputCls, labelCls } from '../log/LogFilters';
import { useAction } from '../useAction';
import { Button } from '../ui/Button';
import { Card, CardHeader } from '../ui/Card';
import { Notice } from '../ui/States';
import { cx } from '../ui/cx';
import { formatInZone, knownZones, localZone } from './format';
import type { ScheduleJson } from './types';

type Kind = 'handler' | 'sql' | 'procedure';

const EXAMPLES = ['*/5 * * * *', '0 2 * * 1-5', '0 */6 * * *', '*/10 * * * * *'];

export function ScheduleForm({
  initial,
  onSaved,
  onCancel,
}: {
  initial: ScheduleJson | null;
  onSaved: (name: string) => void;
  onCancel: () => void;
}) {
  const id = useId();
  const [name, setName] = useState(initial?.name ?? '');
  const [cron, setCron] = useState(initial?.cron ?? '*/5 * * * *');
  const [timezone, setTimezone] = useState(initial?.timezone ?? 'UTC');
  const [kind, setKind] = useState<Kind>((initial?.kind as Kind) ?? 'handler');
  const [command, setCommand] = useState(initial?.command ?? '');
  const [payload, setPayload] = useState(initial && initial.payload !== null ? JSON.stringify(initial.payload, null, 2) : '');
  const [queue, setQueue] = useState(initial?.queue ?? 'default');
  const [priority, setPriority] = useState(String(initial?.priority ?? 0));
  const [maxAttempts, setMaxAttempts] = useState(initial?.maxAttempts == null ? '' : String(initial.maxAttempts));
  const [timeoutMs, setTimeoutMs] = useState(initial?.timeoutMs == null ? '' : String(initial.timeoutMs));
  const [misfire, setMisfire] = useState(initial?.misfire ?? 'skip');
  const [overlap, setOverlap] = useState(initial?.overlap ?? 'allow');
  const [serverError, setServerError] = useState<{ error: string; field?: string } | null>(null);

  const info = useStoreInfo();
  const kinds: Kind[] = info.data?.kinds.includes('procedure') ? ['handler', 'sql', 'procedure'] : ['handler', 'sql'];
  const handlers = useMemo(() => {
    const names = info.data?.handlers ?? [];
    return initial?.kind === 'handler' && !names.includes(initial.command) ? [initial.command, ...names] : names;
  }, [info.data, initial]);
  const handler = kind === 'handler' ? command || handlers[0] || '' : command;
  const zones = useMemo(() => knownZones(), []);

  const nameError = initial ? null : QUEUE_RE.test(name) ? null : name ? QUEUE_NAME_RULE : 'required';
  const cronError = cronProblem(cron);
  const zone = canonicalZone(timezone.trim());
  const zoneError = zone ? null : 'not an IANA time zone (e.g. UTC, Europe/Berlin, America/New_York)';
  const json = useMemo(() => checkJson(payload), [payload]);
  const prio = checkInt(priority, MIN_PRIORITY, MAX_PRIORITY);
  const attempts = checkInt(maxAttempts, MIN_ATTEMPTS, MAX_ATTEMPTS);
  const timeout = checkInt(timeoutMs, MIN_TIMEOUT_MS, MAX_TIMEOUT_MS);
  const queueError = QUEUE_RE.test(queue) ? null : QUEUE_NAME_RULE;
  const commandError = handler.trim() ? null : kind === 'handler' ? 'choose a handler' : 'required';
  const invalid =
    !!nameError ||
    !!cronError ||
    !!zoneError ||
    !json.ok ||
    !!prio.error ||
    !!attempts.error ||
    !!timeout.error ||
    !!queueError ||
    !!commandError;

  const preview = useMemo(() => {
    if (cronError || !zone) return null;
    try {
      return { words: describeCron(cron.trim()), next: nextFires(cron.trim(), zone, new Date(), 5) };
    } catch {
      return null;
    }
  }, [cron, cronError, zone]);
  const here = useMemo(() => localZone(), []);

  const save = useAction(saveSchedule, {
    success: (r) => (initial ? `${r.schedule.name} saved: takes effect from the next tick` : `${r.schedule.name} created`),
    toastErrors: false,
  });

  const submit = async () => {
    setServerError(null);
    const body: Record<string, unknown> = {
      cron: cron.trim(),
      timezone: zone ?? timezone,
      kind,
      command: handler.trim(),
      payload: json.ok ? (json.value ?? null) : null,
      queue,
      priority: prio.value ?? 0,
      maxAttempts: attempts.value ?? null,
      timeoutMs: timeout.value ?? null,
      misfire,
      overlap,
    };
    if (!initial) body.name = name;
    const r = await save.run(initial ? initial.name : null, body);
    if (r.ok) onSaved(r.schedule.name);
    else setServerError({ error: r.error, field: r.field });
  };

  /** the server's message for a field, when it named that one */
  const server = (field: string) => (serverError?.field === field ? serverError.error.replace(/^[\w.]+: /, '') : null);

  return (
    <Card className="mb-5" testId="schedule-form">
      <CardHeader
        title={initial ? `Edit ${initial.name}` : 'New schedule'}
        subtitle="A task created at every tick of a cron expression, read in its time zone. Changes take effect from the next tick."
      />
      <form
        className="grid gap-5 p-4 lg:grid-cols-[minmax(0,1fr)_20rem]"
        onSubmit={(e) => {
          e.preventDefault();
          if (!invalid) void submit();
        }}
      >
        <div className="grid gap-4 sm:grid-cols-2">
          <div>
            <label className={labelCls} htmlFor={`${id}-name`}>
              Name
            </label>
            <input
              id={`${id}-name`}
              data-testid="schedule-name"
              value={name}
              disabled={!!initial}
              onChange={(e) => setName(e.target.value)}
              placeholder="nightly-rollup"
              className={cx(inputCls, 'font-mono', errCls(nameError || server('name')), initial && 'bg-slate-50 text-slate-500')}
              aria-invalid={!!(nameError || server('name'))}
            />
            <FieldError id="schedule-name-error">{(name || !initial ? nameError : null) ?? server('name')}</FieldError>
          </div>
          <div>
            <label className={labelCls} htmlFor={`${id}-tz`}>
              Time zone
            </label>
            <input
              id={`${id}-tz`}
              data-testid="schedule-tz"
              list={`${id}-zones`}
              value={timezone}
              onChange={(e) => setTimezone(e.target.value)}
              className={cx(inputCls, 'font-mono', errCls(zoneError || server('timezone')))}
              aria-invalid={!!(zoneError || server('timezone'))}
            />
            <datalist id={`${id}-zones`}>
              {zones.map((z) => (
                <option key={z} value={z} />
              ))}
            </datalist>
            <FieldError id="schedule-tz-error">{zoneError ?? server('timezone')}</FieldError>
          </div>
          <div className="sm:col-span-2">
            <label className={labelCls} htmlFor={`${id}-cron`}>
              Cron expression <span className="font-normal text-slate-400">— 5 fields, or 6 with seconds first</span>
            </label>
            <input
              id={`${id}-cron`}
              data-testid="schedule-cron"
              value={cron}
              onChange={(e) => setCron(e.target.value)}
              spellCheck={false}
              className={cx(inputCls, 'font-mono', errCls(cronError || server('cron')))}
              aria-invalid={!!(cronError || server('cron'))}
              aria-describedby={`${id}-cron-help`}
            />
            <FieldError id="schedule-cron-error">{cronError ?? server('cron')}</FieldError>
            <div id={`${id}-cron-help`} className="mt-1.5 flex flex-wrap gap-1.5 text-xs text-slate-500">
              {EXAMPLES.map((x) => (
                <button
                  key={x}
                  type="button"
                  onClick={() => setCron(x)}
                  className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-slate-600 hover:bg-slate-200"
                >
                  {x}
                </button>
              ))}
            </div>
          </div>
          <div>
            <label className={labelCls} htmlFor={`${id}-kind`}>
              Task
            </label>
            <select
              id={`${id}-kind`}
              data-testid="schedule-kind"
              value={kind}
              onChange={(e) => {
                setKind(e.target.value as Kind);
                setCommand('');
              }}
              className={inputCls}
            >
              {kinds.map((k) => (
                <option key={k} value={k}>
                  {k === 'handler' ? 'Handler' : k === 'sql' ? 'SQL batch' : 'Stored procedure'}
                </option>
              ))}
            </select>
          </div>
          <div>
            <label className={labelCls} htmlFor={`${id}-command`}>
              {kind === 'handler' ? 'Handler' : kind === 'sql' ? 'SQL' : 'Procedure (schema.name)'}
            </label>
            {kind === 'handler' ? (
              <select
                id={`${id}-command`}
                data-testid="schedule-command"
                value={handler}
                onChange={(e) => setCommand(e.target.value)}
                className={cx(inputCls, 'font-mono', errCls(commandError || server('command')))}
              >
                {handlers.map((h) => (
                  <option key={h} value={h}>
                    {h}
                  </option>
                ))}
              </select>
            ) : (
              <input
                id={`${id}-command`}
                data-testid="schedule-command"
                value={command}
                onChange={(e) => setCommand(e.target.value)}
                className={cx(inputCls, 'font-mono', errCls(commandError || server('command')))}
              />
            )}
            <FieldError id="schedule-command-error">{commandError ?? server('command') ?? server('kind')}</FieldError>
          </div>
          {kind !== 'sql' && (
            <div className="sm:col-span-2">
              <label className={labelCls} htmlFor={`${id}-payload`}>
                {kind === 'handler' ? 'Payload (JSON, optional)' : 'Parameters (JSON object, optional)'}
              </label>
              <textarea
                id={`${id}-payload`}
                data-testid="schedule-payload"
                rows={3}
                value={payload}
                onChange={(e) => setPayload(e.target.value)}
                spellCheck={false}
                className={cx(inputCls, 'font-mono text-xs', errCls(!json.ok || server('payload')))}
              />
              <FieldError id="schedule-payload-error">{json.ok ? server('payload') : json.error}</FieldError>
            </div>
          )}
          <div>
            <label className={labelCls} htmlFor={`${id}-queue`}>
              Queue
            </label>
            <input
              id={`${id}-queue`}
              data-testid="schedule-queue"
              value={queue}
              onChange={(e) => setQueue(e.target.value)}
              className={cx(inputCls, 'font-mono', errCls(queueError || server('queue')))}
            />
            <FieldError id="schedule-queue-error">{queueError ?? server('queue')}</FieldError>
          </div>
          <div className="grid grid-cols-3 gap-2">
            <div>
              <label className={labelCls} htmlFor={`${id}-prio`}>
                Priority
              </label>
              <input
                id={`${id}-prio`}
                inputMode="numeric"
                value={priority}
                onChange={(e) => setPriority(e.target.value)}
                className={cx(inputCls, errCls(prio.error))}
              />
              <FieldError id="schedule-priority-error">{prio.error ?? server('priority')}</FieldError>
            </div>
            <div>
              <label className={labelCls} htmlFor={`${id}-attempts`}>
                Attempts
              </label>
              <input
                id={`${id}-attempts`}
                inputMode="numeric"
                placeholder="queue's"
                value={maxAttempts}
                onChange={(e) => setMaxAttempts(e.target.value)}
                className={cx(inputCls, errCls(attempts.error))}
              />
              <FieldError id="schedule-attempts-error">{attempts.error ?? server('maxAttempts')}</FieldError>
            </div>
            <div>
              <label className={labelCls} htmlFor={`${id}-timeout`}>
                Timeout ms
              </label>
              <input
                id={`${id}-timeout`}
                inputMode="numeric"
                placeholder="queue's"
                value={timeoutMs}
                onChange={(e) => setTimeoutMs(e.target.value)}
                className={cx(inputCls, errCls(timeout.error))}
              />
              <FieldError id="schedule-timeout-error">{timeout.error ?? server('timeoutMs')}</FieldError>
            </div>
          </div>
          <div>
            <label className={labelCls} htmlFor={`${id}-misfire`}>
              After downtime (misfire)
            </label>
            <select
              id={`${id}-misfire`}
              data-testid="schedule-misfire"
              value={misfire}
              onChange={(e) => setMisfire(e.target.value as typeof misfire)}
              className={inputCls}
            >
              <option value="skip">skip the missed ticks</option>
              <option value="run_once">run once for all missed ticks</option>
            </select>
          </div>
          <div>
            <label className={labelCls} htmlFor={`${id}-overlap`}>
              While the previous fire runs (overlap)
            </label>
            <select
              id={`${id}-overlap`}
              data-testid="schedule-overlap"
              value={overlap}
              onChange={(e) => setOverlap(e.target.value as typeof overlap)}
              className={inputCls}
            >
              <option value="allow">fire anyway</option>
              <option value="skip_if_running">skip the tick</option>
            </select>
          </div>
        </div>

        <aside className="rounded-md bg-slate-50 p-3 ring-1 ring-slate-200" data-testid="schedule-preview" aria-live="polite">
          <h3 className="text-xs font-semibold uppercase tracking-wide text-slate-500">Preview</h3>
          {preview ? (
            <>
              <p className="mt-1 text-sm font-medium text-slate-900" data-testid="schedule-words">
                {preview.words}
              </p>
              <p className="mt-0.5 text-xs text-slate-500">in {zone}</p>
              <ol className="mt-3 space-y-1.5" data-testid="schedule-next-fires">
                {preview.next.map((d) => (
                  <li key={d.getTime()} className="text-xs">
                    <span className="tabular font-mono text-slate-800">{formatInZone(d, zone!)}</span>
                    {zone !== here && <span className="block text-slate-400">{formatInZone(d)} your time</span>}
                  </li>
                ))}
              </ol>
            </>
          ) : (
            <p className="mt-1 text-sm text-slate-500">Fix the expression and the zone to see the next fire times.</p>
          )}
        </aside>

        <div className="flex flex-wrap items-center gap-2 lg:col-span-2">
          {serverError && !['name', 'cron', 'timezone', 'command', 'kind', 'payload', 'queue'].includes(serverError.field ?? '') && (
            <div className="w-full">
              <Notice tone="error" testId="schedule-form-error">
                {serverError.error}
              </Notice>
            </div>
          )}
          <Button type="submit" variant="primary" busy={save.busy} disabled={invalid} data-testid="schedule-save">
            {initial ? 'Save changes' : 'Create schedule'}
          </Button>
          <Button onClick={onCancel} data-testid="schedule-cancel">
            Cancel
          </Button>
        </div>
      </form>
    </Card>
  );
}
