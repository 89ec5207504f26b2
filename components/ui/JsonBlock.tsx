import { prettyJson } from '../format';
import { cx } from './cx';

export function JsonBlock({
  value,
  empty = 'none',
  className,
  testId,
}: {
  value: unknown;
  empty?: string;
  className?: string;
  testId?: string;
}) {
  if (value === null || value === undefined)
    return (
      <p className="text-sm italic text-slate-400" data-testid={testId}>
        {empty}
      </p>
    );
  return (
    <pre
      data-testid={testId}
      className={cx(
        'max-h-96 overflow-auto whitespace-pre-wrap break-words rounded-md bg-slate-900 p-3 font-mono text-xs ' +
          'leading-relaxed text-slate-100',
        className,
      )}
    >
      {prettyJson(value)}
    </pre>
  );
}
