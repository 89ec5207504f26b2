'use client';
// The enqueue form's "Run after": the tokens of the tasks this one waits for (dependsOn), and what happens
// when one of them goes dead or is cancelled (onParentFailure).
import { MAX_PARENTS } from '@/lib/engine/limits';
import { inputCls, labelCls } from '../log/LogFilters';
import { FieldError, errCls } from '../ui/FieldError';
import { cx } from '../ui/cx';
import { parseTokens } from './fields';

export type ParentPolicy = 'cancel' | 'run' | 'wait';

const POLICIES: { value: ParentPolicy; label: string }[] = [
  { value: 'cancel', label: 'cancel this task (default)' },
  { value: 'run', label: 'run it anyway' },
  { value: 'wait', label: 'keep it waiting for an operator' },
];

/** the form's dependsOn from the text: tokens, or the problem to show */
export function runAfterOf(text: string) {
  return parseTokens(text, MAX_PARENTS);
}

export function RunAfter({
  text,
  policy,
  onText,
  onPolicy,
  serverError,
}: {
  text: string;
  policy: ParentPolicy;
  onText: (t: string) => void;
  onPolicy: (p: ParentPolicy) => void;
  /** the server's word on dependsOn (or dependsOn.<i>) */
  serverError: string | null;
}) {
  const parsed = runAfterOf(text);
  const error = parsed.error ?? serverError;
  const n = parsed.tokens.length;
  return (
    <div className="grid grid-cols-2 gap-4 sm:grid-cols-3">
      <div className="col-span-2">
        <label htmlFor="e-after" className={labelCls}>
          Run after (optional)
        </label>
        <textarea
          id="e-after"
          data-testid="enqueue-after"
          rows={2}
          spellCheck={false}
          placeholder="task tokens, separated by commas or new lines"
          className={cx(inputCls, 'font-mono text-xs', errCls(error))}
          aria-invalid={!!error}
          aria-describedby="error-dependsOn"
          value={text}
          onChange={(e) => onText(e.target.value)}
        />
        {error ? (
          <FieldError id="error-dependsOn">{error}</FieldError>
        ) : (
          <p className="mt-1 text-xs text-slate-400" id="error-dependsOn" data-testid="enqueue-after-hint">
            {n === 0
              ? 'Empty: runs as soon as a worker is free. Given: waits until every one of these tasks has succeeded.'
              : `Waits for ${n} parent${n === 1 ? '' : 's'} to succeed.`}
          </p>
        )}
      </div>
      <div className="col-span-2 sm:col-span-1">
        <label htmlFor="e-after-policy" className={labelCls}>
          If a parent fails
        </label>
        <select
          id="e-after-policy"
          data-testid="enqueue-after-policy"
          className={inputCls}
          value={policy}
          disabled={n === 0}
          title="When a parent goes dead or is cancelled"
          onChange={(e) => onPolicy(e.target.value as ParentPolicy)}
        >
          {POLICIES.map((p) => (
            <option key={p.value} value={p.value}>
              {p.label}
            </option>
          ))}
        </select>
      </div>
    </div>
  );
}
