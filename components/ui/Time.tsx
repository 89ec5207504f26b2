'use client';
import { formatDuration, formatLocal, formatRelative } from '../format';
import { useNow } from '../live';

/** "3 s ago", with the ISO time in a tooltip; re-renders with the shared clock. */
export function RelativeTime({ iso, className }: { iso: string | null | undefined; className?: string }) {
  const now = useNow();
  if (!iso) return <span className={className}>—</span>;
  return (
    <time dateTime={iso} title={`${iso} (${formatLocal(iso)} local)`} className={className}>
      {formatRelative(iso, now)}
    </time>
  );
}

/**
 * A table's "when" cell: "3 s ago" and, lighter beside it, the local time. `wrapNarrow`: on a phone (a field of a
 * card, half its width) the local time goes under the relative one rather than past the field's edge.
 */
export function WhenCell({ iso, wrapNarrow = false }: { iso: string | null; wrapNarrow?: boolean }) {
  return (
    <span className={wrapNarrow ? 'text-xs sm:whitespace-nowrap' : 'whitespace-nowrap text-xs'}>
      <RelativeTime iso={iso} className="whitespace-nowrap text-slate-700" />{' '}
      <span className="whitespace-nowrap text-slate-400 sm:ml-0.5">{formatLocal(iso)}</span>
    </span>
  );
}

/** Elapsed time since `from` (until `to`, or ticking when `to` is absent). */
export function Elapsed({
  from,
  to,
  className,
  testId,
}: {
  from: string | null | undefined;
  to?: string | null;
  className?: string;
  testId?: string;
}) {
  const now = useNow();
  if (!from) return <span className={className}>—</span>;
  const end = to ? Date.parse(to) : now;
  return (
    <span data-testid={testId} className={className ?? 'tabular font-mono text-xs'} title={to ? `${from} → ${to}` : `since ${from}`}>
      {formatDuration(Math.max(0, end - Date.parse(from)))}
    </span>
  );
}
