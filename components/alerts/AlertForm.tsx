'use client';
// Create or edit an alert rule: what it watches (the kind's own fields), where it posts (an http(s) URL,
// JSON or Slack/Teams text, an optional signing secret) and its dedup window. Checked as you type; the
// server checks again on save and names the field. An edit leaves the URL and the secret as they are unless
// replaced (reads show both masked).
import { errCls, FieldError } from '../ui/FieldError';
import { useId, useState } from 'react';
import { saveAlertRule } from '@/app/alerts/actions';
import { ALERT_KIND_INFO, ALERT_KINDS, DEFAULT_DEDUP_MS, MAX_STREAK, type AlertFormat, type AlertKind } from '@/lib/engine/alert-types';
import { QUEUE_NAME_RULE } from '@/lib/engine/limits';
import { QUEUE_RE } from '../enqueue/fields';
import { inputCls, labelCls } from '../log/LogFilters';
import { useAction } from '../useAction';
import { Button } from '../ui/Button';
import { Card, CardHeader } from '../ui/Card';
import { Notice } from '../ui/States';
import { cx } from '../ui/cx';
import type { AlertRuleJson } from './types';

function urlProblem(s: string): string | null {
  if (!s.trim()) return 'required';
  try {
    const u = new URL(s.trim());
    return u.protocol === 'http:' || u.protocol === 'https:' ? null : 'must be an http:// or https:// URL';
  } catch {
    return 'must be an http:// or https:// URL';
  }
}

/** a whole number in [min, max], or the problem; '' is null */
function intIn(s: string, min: number, max: number): { value: number | null; error: string | null } {
  if (s.trim() === '') return { value: null, error: null };
  if (!/^\d+$/.test(s.trim())) return { value: null, error: 'a whole number' };
  const n = Number(s.trim());
  return n < min || n > max ? { value: null, error: `from ${min} to ${max}` } : { value: n, error: null };
}

export function AlertForm({ initial, onDone }: { initial: AlertRuleJson | null; onDone: () => void }) {
  const id = useId();
  const [name, setName] = useState(initial?.name ?? '');
  const [kind, setKind] = useState<AlertKind>(initial?.kind ?? 'task_dead');
  const [queue, setQueue] = useState(initial?.queue ?? '');
  const [command, setCommand] = useState(initial?.command ?? '');
  const [schedule, setSchedule] = useState(initial?.schedule ?? '');
  const [threshold, setThreshold] = useState(initial?.thresholdMs == null ? '' : String(Math.round(initial.thresholdMs / 1000)));
  const [count, setCount] = useState(initial?.count == null ? '' : String(initial.count));
  // reads show a rule's URL masked: an edit keeps it unless a new one is typed
  const [url, setUrl] = useState('');
  const [secret, setSecret] = useState('');
  const [removeSecret, setRemoveSecret] = useState(false);
  const [format, setFormat] = useState<AlertFormat>(initial?.format ?? 'json');
  const [dedup, setDedup] = useState(String(Math.round((initial?.dedupMs ?? DEFAULT_DEDUP_MS) / 60_000)));
  const [serverError, setServerError] = useState<{ error: string; field?: string } | null>(null);

  const info = ALERT_KIND_INFO[kind];
  const uses = (f: string) => info.params.includes(f);
  const needs = (f: string) => info.required.includes(f);

  const nameError = QUEUE_RE.test(name) ? null : name ? QUEUE_NAME_RULE : 'required';
  const queueError = uses('queue') && queue && !QUEUE_RE.test(queue) ? QUEUE_NAME_RULE : null;
  const scheduleError = uses('schedule') && schedule && !QUEUE_RE.test(schedule) ? QUEUE_NAME_RULE : null;
  const commandError = needs('command') && !command.trim() ? 'required' : null;
  const th = intIn(threshold, 1, 30 * 24 * 3600);
  const thresholdError = th.error ?? (needs('thresholdMs') && th.value === null ? 'required' : null);
  const n = intIn(count, 1, MAX_STREAK);
  const countError = n.error ?? (needs('count') && n.value === null ? 'required' : null);
  const urlError = initial && !url.trim() ? null : urlProblem(url);
  const d = intIn(dedup, 0, 7 * 24 * 60);
  const dedupError = d.error ?? (d.value === null ? 'required' : null);
  const invalid = !!(
    nameError ||
    (uses('queue') && queueError) ||
    (uses('schedule') && scheduleError) ||
    (uses('command') && commandError) ||
    (uses('thresholdMs') && thresholdError) ||
    (uses('count') && countError) ||
    urlError ||
    dedupError
  );

  const save = useAction(saveAlertRule, {
    success: (r) => (initial ? `${r.rule.name} saved` : `alert rule ${r.rule.name} created`),
    toastErrors: false,
  });

  const submit = async () => {
    setServerError(null);
    const body: Record<string, unknown> = {
      name,
      kind,
      queue: uses('queue') && queue ? queue : null,
      command: uses('command') && command.trim() ? command.trim() : null,
      schedule: uses('schedule') && schedule ? schedule : null,
      thresholdMs: uses('thresholdMs') && th.value !== null ? th.value * 1000 : null,
      count: uses('count') ? n.value : null,
      format,
      dedupMs: (d.value ?? 0) * 60_000,
    };
    if (url.trim() || !initial) body.url = url.trim();
    if (secret) body.secret = secret;
    else if (removeSecret || !initial) body.secret = null;
    const r = await save.run(initial ? initial.id : null, body);
    if (r.ok) onDone();
    else setServerError({ error: r.error, field: r.field });
  };

  const server = (field: string) => (serverError?.field === field ? serverError.error.replace(/^[\w.]+: /, '') : null);

  return (
    <Card className="mb-5" testId="alert-form">
      <CardHeader
        title={initial ? `Edit ${initial.name}` : 'New alert rule'}
        subtitle={
          'A webhook POST when what the rule watches happens: once per key within the dedup window, ' + 'retried by readpast when it fails.'
        }
      />
      <form
        className="grid gap-4 p-4 sm:grid-cols-2 lg:grid-cols-3"
        onSubmit={(e) => {
          e.preventDefault();
          if (!invalid) void submit();
        }}
      >
        <div>
          <label className={labelCls} htmlFor={`${id}-name`}>
            Name
          </label>
          <input
            id={`${id}-name`}
            data-testid="alert-name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            placeholder="orders-dead"
            className={cx(inputCls, 'font-mono', errCls((name && nameError) || server('name')))}
          />
          <FieldError id="alert-name-error">{(name ? nameError : null) ?? server('name')}</FieldError>
        </div>
        <div className="lg:col-span-2">
          <label className={labelCls} htmlFor={`${id}-kind`}>
            When
          </label>
          <select
            id={`${id}-kind`}
            data-testid="alert-kind"
            value={kind}
            onChange={(e) => setKind(e.target.value as AlertKind)}
            className={inputCls}
          >
            {ALERT_KINDS.map((k) => (
              <option key={k} value={k}>
                {ALERT_KIND_INFO[k].label}
              </option>
            ))}
          </select>
        </div>

        {uses('queue') && (
          <div>
            <label className={labelCls} htmlFor={`${id}-queue`}>
              Queue <span className="font-normal text-slate-400">— empty: every queue</span>
            </label>
            <input
              id={`${id}-queue`}
              data-testid="alert-queue"
              value={queue}
              onChange={(e) => setQueue(e.target.value)}
              className={cx(inputCls, 'font-mono', errCls(queueError || server('queue')))}
            />
            <FieldError id="alert-queue-error">{queueError ?? server('queue')}</FieldError>
          </div>
        )}
        {uses('command') && (
          <div>
            <label className={labelCls} htmlFor={`${id}-command`}>
              Command {needs('command') ? '' : <span className="font-normal text-slate-400">— empty: any</span>}
            </label>
            <input
              id={`${id}-command`}
              data-testid="alert-command"
              value={command}
              onChange={(e) => setCommand(e.target.value)}
              placeholder="billing.charge"
              className={cx(inputCls, 'font-mono', errCls(commandError || server('command')))}
            />
            <FieldError id="alert-command-error">{commandError ?? server('command')}</FieldError>
          </div>
        )}
        {uses('schedule') && (
          <div>
            <label className={labelCls} htmlFor={`${id}-schedule`}>
              Schedule <span className="font-normal text-slate-400">— empty: every schedule</span>
            </label>
            <input
              id={`${id}-schedule`}
              data-testid="alert-schedule"
              value={schedule}
              onChange={(e) => setSchedule(e.target.value)}
              className={cx(inputCls, 'font-mono', errCls(scheduleError || server('schedule')))}
            />
            <FieldError id="alert-schedule-error">{scheduleError ?? server('schedule')}</FieldError>
          </div>
        )}
        {uses('thresholdMs') && (
          <div>
            <label className={labelCls} htmlFor={`${id}-threshold`}>
              {kind === 'ready_age' ? 'Older than (seconds)' : 'Late by more than (seconds, default 60)'}
            </label>
            <input
              id={`${id}-threshold`}
              data-testid="alert-threshold"
              inputMode="numeric"
              value={threshold}
              onChange={(e) => setThreshold(e.target.value)}
              className={cx(inputCls, 'tabular', errCls(thresholdError || server('thresholdMs')))}
            />
            <FieldError id="alert-threshold-error">{thresholdError ?? server('thresholdMs')}</FieldError>
          </div>
        )}
        {uses('count') && (
          <div>
            <label className={labelCls} htmlFor={`${id}-count`}>
              Failed attempts in a row
            </label>
            <input
              id={`${id}-count`}
              data-testid="alert-count"
              inputMode="numeric"
              value={count}
              onChange={(e) => setCount(e.target.value)}
              className={cx(inputCls, 'tabular', errCls(countError || server('count')))}
            />
            <FieldError id="alert-count-error">{countError ?? server('count')}</FieldError>
          </div>
        )}

        <div className="sm:col-span-2 lg:col-span-3">
          <label className={labelCls} htmlFor={`${id}-url`}>
            Webhook URL
            {initial && (
              <span className="font-normal text-slate-500" data-testid="alert-url-now">
                {' '}
                — now <span className="font-mono">{initial.url}</span>; empty keeps it
              </span>
            )}
          </label>
          <input
            id={`${id}-url`}
            data-testid="alert-url"
            value={url}
            onChange={(e) => {
              setUrl(e.target.value);
              // the server judged the URL it was sent (e.g. an internal address); a changed one is not judged yet
              if (serverError?.field === 'url') setServerError(null);
            }}
            placeholder="https://hooks.slack.com/services/…"
            spellCheck={false}
            className={cx(inputCls, 'font-mono', errCls((url && urlError) || server('url')))}
          />
          <FieldError id="alert-url-error">{(url ? urlError : null) ?? server('url')}</FieldError>
        </div>
        <div>
          <label className={labelCls} htmlFor={`${id}-format`}>
            Body
          </label>
          <select
            id={`${id}-format`}
            data-testid="alert-format"
            value={format}
            onChange={(e) => setFormat(e.target.value as AlertFormat)}
            className={inputCls}
          >
            <option value="json">readpast JSON</option>
            <option value="slack">Slack / Teams text</option>
          </select>
        </div>
        <div>
          <label className={labelCls} htmlFor={`${id}-secret`}>
            Signing secret{' '}
            <span className="font-normal text-slate-400">
              — {initial?.secret ? `now ${initial.secret}; empty keeps it` : 'optional: X-Readpast-Signature'}
            </span>
          </label>
          <input
            id={`${id}-secret`}
            data-testid="alert-secret"
            type="password"
            autoComplete="new-password"
            value={secret}
            onChange={(e) => setSecret(e.target.value)}
            className={cx(inputCls, 'font-mono', errCls(server('secret')))}
          />
          {initial?.secret && (
            <label className="mt-1 flex items-center gap-1.5 text-xs text-slate-600">
              <input type="checkbox" checked={removeSecret} onChange={(e) => setRemoveSecret(e.target.checked)} /> remove the secret
            </label>
          )}
          <FieldError id="alert-secret-error">{server('secret')}</FieldError>
        </div>
        <div>
          <label className={labelCls} htmlFor={`${id}-dedup`}>
            Once per key within (minutes)
          </label>
          <input
            id={`${id}-dedup`}
            data-testid="alert-dedup"
            inputMode="numeric"
            value={dedup}
            onChange={(e) => setDedup(e.target.value)}
            className={cx(inputCls, 'tabular', errCls(dedupError || server('dedupMs')))}
          />
          <FieldError id="alert-dedup-error">{dedupError ?? server('dedupMs')}</FieldError>
        </div>

        {serverError &&
          !['name', 'queue', 'command', 'schedule', 'thresholdMs', 'count', 'url', 'secret', 'dedupMs'].includes(
            serverError.field ?? '',
          ) && (
            <div className="sm:col-span-2 lg:col-span-3">
              <Notice tone="error" testId="alert-form-error">
                {serverError.error}
              </Notice>
            </div>
          )}
        <div className="flex justify-end gap-2 sm:col-span-2 lg:col-span-3">
          <Button onClick={onDone} data-testid="alert-cancel">
            Cancel
          </Button>
          <Button type="submit" variant="primary" busy={save.busy} disabled={invalid} data-testid="alert-save">
            {initial ? 'Save' : 'Create rule'}
          </Button>
        </div>
      </form>
    </Card>
  );
}
