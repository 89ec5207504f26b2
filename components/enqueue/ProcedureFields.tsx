'use client';
// The Procedure tab of the enqueue form (SQL Server): a procedure name, then one typed field per
// parameter from `GET /api/procedures/{name}/parameters`, checked as you type.
import { useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import type { ProcedureParameter } from '@/lib/engine/types';
import type { ProcedureParametersJson } from '@/lib/api/present';
import { ApiError, fetchJson } from '../api';
import { inputCls, labelCls } from '../log/LogFilters';
import { Button } from '../ui/Button';
import { cx } from '../ui/cx';
import {
  checkParam,
  emptyValue,
  GUID_PATTERN,
  paramHint,
  paramKind,
  paramOfField,
  PROCEDURE_NAME_RE,
  typeLabel,
  type FieldValue,
  type ParamCheck,
} from './procedure';

export interface ProcedureForm {
  name: string;
  setName: (name: string) => void;
  /** fetch the parameters of the name typed (on blur, Enter or the button) */
  load: () => void;
  loaded: string | null;
  params: ProcedureParameter[];
  values: Record<string, FieldValue>;
  setValue: (param: string, v: FieldValue) => void;
  checks: Map<string, ParamCheck>;
  payload: Record<string, unknown>;
  /** why the form cannot be submitted yet, or null */
  error: string | null;
  nameError: string | null;
  lookup: { pending: boolean; error: Error | null };
}

export function useProcedureForm(enabled: boolean): ProcedureForm {
  const [name, setName] = useState('');
  const [loaded, setLoaded] = useState<string | null>(null);
  const [values, setValues] = useState<Record<string, FieldValue>>({});
  const q = useQuery({
    queryKey: ['procedure-parameters', loaded],
    queryFn: ({ signal }) => fetchJson<ProcedureParametersJson>(`/api/procedures/${encodeURIComponent(loaded ?? '')}/parameters`, signal),
    enabled: enabled && loaded !== null,
    retry: false,
    staleTime: 60_000,
  });
  const trimmed = name.trim();
  const nameError = trimmed === '' ? null : PROCEDURE_NAME_RE.test(trimmed) ? null : 'not a procedure name (name or schema.name)';
  const params = useMemo(() => (loaded !== null && q.data ? q.data.parameters : []), [loaded, q.data]);
  const checks = useMemo(() => new Map(params.map((p) => [p.name, checkParam(p, values[p.name] ?? emptyValue(p))])), [params, values]);
  const payload = useMemo(() => {
    const out: Record<string, unknown> = {};
    for (const [n, c] of checks) if (c.send) out[n] = c.value;
    return out;
  }, [checks]);

  let error: string | null = null;
  if (trimmed === '') error = 'enter a procedure name';
  else if (nameError) error = nameError;
  else if (loaded !== trimmed) error = 'load the procedure’s parameters';
  else if (q.isPending) error = 'loading parameters…';
  else if (q.isError) error = q.error.message;
  else if ([...checks.values()].some((c) => c.error)) error = 'fix the highlighted parameters';

  const load = () => {
    if (!trimmed || nameError) return;
    if (trimmed === loaded) {
      if (q.isError) void q.refetch();
      return;
    }
    setLoaded(trimmed);
    setValues({});
  };

  return {
    name,
    setName,
    load,
    loaded,
    params,
    values,
    setValue: (param, v) => setValues((prev) => ({ ...prev, [param]: v })),
    checks,
    payload,
    error,
    nameError,
    lookup: { pending: loaded !== null && q.isFetching, error: loaded !== null ? q.error : null },
  };
}

const stripField = (message: string, field: string | undefined) =>
  field && message.startsWith(`${field}: `) ? message.slice(field.length + 2) : message;

const textLength = (v: FieldValue | undefined) => (v && 'text' in v ? v.text.length : 0);

function lookupMessage(err: Error, name: string): string {
  if (err instanceof ApiError && err.status === 404) return `no procedure ${name} in this database (or this login cannot see it)`;
  return err.message;
}

function ParamInput({
  p,
  value,
  invalid,
  onChange,
}: {
  p: ProcedureParameter;
  value: FieldValue;
  invalid: boolean;
  onChange: (v: FieldValue) => void;
}) {
  const kind = paramKind(p);
  const id = `proc-param-${p.name}`;
  const t = p.type.toLowerCase();
  const common = {
    id,
    'data-testid': id,
    'aria-invalid': invalid || undefined,
    'aria-describedby': `proc-hint-${p.name} proc-error-${p.name}`,
  };
  // aria-invalid variants sort after the base ring colour, so they win over inputCls
  const ring = invalid && 'aria-invalid:ring-2 aria-invalid:ring-rose-400 aria-invalid:focus:ring-rose-500';
  if (p.isOutput || kind === 'unsupported') {
    return (
      <input
        {...common}
        readOnly
        disabled
        value={p.isOutput ? 'output' : 'not supported'}
        className={cx(inputCls, 'bg-slate-50 italic text-slate-500')}
      />
    );
  }
  if ('flag' in value) {
    return (
      <div className="flex items-center gap-3 py-1">
        <input
          {...common}
          type="checkbox"
          className="size-4 accent-brand-600"
          checked={value.flag === true}
          ref={(el) => {
            if (el) el.indeterminate = value.flag === null;
          }}
          onChange={(e) => onChange({ flag: e.target.checked })}
        />
        <span className="text-xs text-slate-600" data-testid={`proc-bit-${p.name}`}>
          {value.flag === null ? 'not sent' : value.flag ? '1 (true)' : '0 (false)'}
        </span>
        {value.flag !== null && (
          <button type="button" className="text-xs text-brand-600 hover:underline" onClick={() => onChange({ flag: null })}>
            don&apos;t send
          </button>
        )}
      </div>
    );
  }
  const text = value.text;
  const set = (e: { target: HTMLInputElement | HTMLTextAreaElement }) =>
    onChange({ text: e.target.value, bad: 'validity' in e.target ? e.target.validity.badInput : false });
  switch (kind) {
    case 'integer':
    case 'bigint':
    case 'decimal':
    case 'float': {
      const scale = kind === 'decimal' ? (t === 'money' || t === 'smallmoney' ? 4 : (p.scale ?? 0)) : 0;
      const step = kind === 'float' ? 'any' : scale > 0 ? `0.${'0'.repeat(scale - 1)}1` : '1';
      return (
        <input
          {...common}
          type="number"
          inputMode={kind === 'float' || scale > 0 ? 'decimal' : 'numeric'}
          step={step}
          value={text}
          onChange={set}
          className={cx(inputCls, 'tabular font-mono', ring)}
        />
      );
    }
    case 'boolean':
      return null;
    case 'date':
      return <input {...common} type="date" value={text} onChange={set} className={cx(inputCls, ring)} />;
    case 'datetime':
    case 'datetimeoffset':
      return (
        <input
          {...common}
          type="datetime-local"
          step={t === 'smalldatetime' ? 60 : 1}
          value={text}
          onChange={set}
          className={cx(inputCls, ring)}
        />
      );
    case 'time':
      return <input {...common} type="time" step={1} value={text} onChange={set} className={cx(inputCls, ring)} />;
    case 'uuid':
      return (
        <div className="flex gap-2">
          <input
            {...common}
            type="text"
            pattern={GUID_PATTERN}
            spellCheck={false}
            autoComplete="off"
            placeholder="xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"
            value={text}
            onChange={set}
            className={cx(inputCls, 'font-mono text-xs', ring)}
          />
          <Button size="sm" onClick={() => onChange({ text: crypto.randomUUID() })} data-testid={`proc-uuid-${p.name}`}>
            new
          </Button>
        </div>
      );
    case 'binary':
    case 'xml':
      return (
        <textarea
          {...common}
          rows={3}
          spellCheck={false}
          placeholder={kind === 'binary' ? 'base64, e.g. AAECAw==' : '<root/>'}
          value={text}
          onChange={set}
          className={cx(inputCls, 'font-mono text-xs', ring)}
        />
      );
    case 'text':
      return p.maxLength === -1 || (p.maxLength ?? 0) > 400 ? (
        <textarea {...common} rows={3} value={text} onChange={set} className={cx(inputCls, ring)} />
      ) : (
        <input {...common} type="text" value={text} onChange={set} className={cx(inputCls, ring)} />
      );
  }
}

export function ProcedureFields({
  form,
  serverError,
  onEdit,
}: {
  form: ProcedureForm;
  /** the last refusal from the server: `payload.<param>` is shown on that parameter, `command` on the name */
  serverError: { error: string; field?: string } | null;
  /** called on every edit (the parent clears a stale server error) */
  onEdit?: () => void;
}) {
  const serverParam = paramOfField(form.params, serverError?.field);
  const commandError = serverError?.field === 'command' ? serverError.error : null;
  const inputs = form.params.filter((p) => !p.isOutput);
  return (
    <div className="space-y-4">
      <div>
        <label htmlFor="e-procedure" className={labelCls}>
          Stored procedure
        </label>
        <div className="flex gap-2">
          <input
            id="e-procedure"
            data-testid="enqueue-procedure"
            aria-invalid={!!(form.nameError || commandError) || undefined}
            className={cx(inputCls, 'font-mono aria-invalid:ring-2 aria-invalid:ring-rose-400')}
            placeholder="dbo.usp_nightly_rollup"
            spellCheck={false}
            autoComplete="off"
            value={form.name}
            onChange={(e) => {
              form.setName(e.target.value);
              onEdit?.();
            }}
            onBlur={form.load}
            onKeyDown={(e) => {
              if (e.key === 'Enter') {
                e.preventDefault();
                form.load();
              }
            }}
          />
          <Button onClick={form.load} busy={form.lookup.pending} data-testid="procedure-load">
            Load parameters
          </Button>
        </div>
        {form.nameError && (
          <p className="mt-1 text-xs text-rose-700" data-testid="error-procedure-name">
            {form.nameError}
          </p>
        )}
        {form.lookup.error && form.loaded && (
          <p className="mt-1 text-xs text-rose-700" data-testid="procedure-lookup-error">
            {lookupMessage(form.lookup.error, form.loaded)}
          </p>
        )}
        {commandError && (
          <p className="mt-1 text-xs text-rose-700" data-testid="error-command">
            {commandError}
          </p>
        )}
        <p className="mt-1 text-xs text-slate-400">
          Runs on the worker&apos;s own SQL Server session; the login needs EXECUTE on it. Parameters come from sys.parameters.
        </p>
      </div>

      {form.loaded && form.loaded === form.name.trim() && !form.lookup.pending && !form.lookup.error && (
        <fieldset data-testid="procedure-params" className="rounded-md border border-slate-200 p-3">
          <legend className="px-1 text-xs font-medium text-slate-600">
            Parameters of <span className="font-mono">{form.loaded}</span>
            {form.params.length > 0 && (
              <span className="font-normal text-slate-400">
                {' '}
                · empty fields are not sent (the procedure&apos;s default or NULL applies)
              </span>
            )}
          </legend>
          {form.params.length === 0 ? (
            <p className="text-xs text-slate-500" data-testid="procedure-no-params">
              This procedure takes no parameters.
            </p>
          ) : (
            <div className="grid gap-x-4 gap-y-3 sm:grid-cols-2">
              {form.params.map((p) => {
                const check = form.checks.get(p.name);
                // the server names the field in its message too ("payload.amount: @amount …"): shown once, on the field
                const server = serverParam === p.name && serverError ? stripField(serverError.error, serverError.field) : null;
                const error = check?.error ?? server;
                const kind = paramKind(p);
                const wide =
                  !p.isOutput &&
                  (kind === 'binary' || kind === 'xml' || (kind === 'text' && (p.maxLength === -1 || (p.maxLength ?? 0) > 400)));
                return (
                  <div
                    key={p.name}
                    data-testid={`proc-field-${p.name}`}
                    data-invalid={error ? '1' : undefined}
                    className={cx('min-w-0', wide && 'sm:col-span-2')}
                  >
                    <label htmlFor={`proc-param-${p.name}`} className={cx(labelCls, 'flex items-baseline justify-between gap-2')}>
                      <span className="font-mono text-slate-800">@{p.name}</span>
                      <span className="font-mono text-[11px] font-normal text-slate-400" data-testid={`proc-type-${p.name}`}>
                        {typeLabel(p)}
                        {p.isOutput && ' OUTPUT'}
                      </span>
                    </label>
                    <ParamInput
                      p={p}
                      value={form.values[p.name] ?? emptyValue(p)}
                      invalid={!!error}
                      onChange={(v) => {
                        form.setValue(p.name, v);
                        onEdit?.();
                      }}
                    />
                    <p id={`proc-hint-${p.name}`} className="mt-1 text-[11px] text-slate-400" data-testid={`proc-hint-${p.name}`}>
                      {paramHint(p)}
                      {kind === 'text' && p.maxLength !== null && p.maxLength >= 0 && !p.isOutput && (
                        <span className="tabular">
                          {' '}
                          · {textLength(form.values[p.name])}/{p.maxLength}
                        </span>
                      )}
                    </p>
                    {check?.note && !error && <p className="mt-0.5 text-[11px] text-amber-700">{check.note}</p>}
                    {error && (
                      <p id={`proc-error-${p.name}`} className="mt-0.5 text-xs text-rose-700" data-testid={`proc-error-${p.name}`}>
                        {error}
                      </p>
                    )}
                  </div>
                );
              })}
            </div>
          )}
          {inputs.length > 0 && (
            <p className="mt-3 text-[11px] text-slate-400">
              Sent as{' '}
              <code className="font-mono" data-testid="procedure-payload">
                {JSON.stringify(form.payload)}
              </code>
            </p>
          )}
        </fieldset>
      )}
    </div>
  );
}

/** What the enqueue page says about procedure tasks, beside the form. */
export function ProcedureHelp() {
  return (
    <div className="space-y-2 text-xs" data-testid="procedure-help">
      <h2 className="text-sm font-semibold text-slate-900">Procedure tasks</h2>
      <p>
        A worker runs the procedure on its own SQL Server session with typed parameters, so the attempt&apos;s SPID in the log is the one
        that ran it.
      </p>
      <p>
        Each value is checked against the parameter&apos;s type when you enqueue; a value that cannot convert is refused here, naming the
        parameter, and never fails later at run time.
      </p>
      <p>Output parameters and the return code become the task&apos;s result.</p>
    </div>
  );
}
