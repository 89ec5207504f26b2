'use client';
// An optional key field of the enqueue form (dedup key, concurrency key): empty means "not given"; a value
// longer than the server takes is flagged while typing, and the server's word on the field shows under it.
import { MAX_CONCURRENCY_KEY_LENGTH, MAX_DEDUP_KEY_LENGTH } from '@/lib/engine/limits';
import { FieldError, errCls } from '../ui/FieldError';
import { inputCls, labelCls } from '../log/LogFilters';
import { cx } from '../ui/cx';

/** Both keys take this many characters at most. */
export const MAX_KEY_CHARS = Math.min(MAX_DEDUP_KEY_LENGTH, MAX_CONCURRENCY_KEY_LENGTH);

const HINTS: Record<string, { placeholder: string; hint: string }> = {
  concurrencyKey: {
    placeholder: "queue's keyFrom, if any",
    hint: "e.g. a customer id: the queue's per-key limit and per-key rate count it, and keys take turns",
  },
};

export function OptionalText({
  id,
  field,
  label,
  value,
  set,
  serverError,
}: {
  id: string;
  /** the request field (error-<field> under it) */
  field: string;
  label: string;
  value: string;
  set: (v: string) => void;
  serverError: string | null;
}) {
  const { placeholder, hint } = HINTS[field] ?? {};
  const error = value.trim().length > MAX_KEY_CHARS ? `at most ${MAX_KEY_CHARS} characters` : serverError;
  return (
    <div className="col-span-2 sm:col-span-1">
      <label htmlFor={id} className={labelCls} title={hint}>
        {label}
      </label>
      <input
        id={id}
        data-testid={id.replace(/^e-/, 'enqueue-')}
        className={cx(inputCls, errCls(error))}
        placeholder={placeholder}
        title={hint}
        aria-invalid={!!error}
        aria-describedby={error ? `error-${field}` : undefined}
        value={value}
        onChange={(e) => set(e.target.value)}
      />
      <FieldError id={`error-${field}`}>{error}</FieldError>
    </div>
  );
}
