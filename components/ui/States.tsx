'use client';
import type { ReactNode } from 'react';
import { useNow } from '../live';
import { formatAge } from '../format';
import { Button } from './Button';
import { Icon, type IconName } from './Icon';
import { cx } from './cx';

export function LoadingState({ rows = 4, label = 'Loading…', className }: { rows?: number; label?: string; className?: string }) {
  return (
    <div role="status" aria-live="polite" data-testid="loading" className={cx('space-y-2 p-4', className)}>
      <span className="sr-only">{label}</span>
      {Array.from({ length: rows }, (_, i) => (
        <div key={i} className="h-8 animate-pulse rounded bg-slate-100" style={{ opacity: 1 - i * 0.15 }} />
      ))}
    </div>
  );
}

export function EmptyState({
  title,
  children,
  icon = 'empty',
  testId = 'empty',
}: {
  title: string;
  children?: ReactNode;
  /** one of the navigation's icons (components/ui/Icon.tsx) */
  icon?: IconName;
  testId?: string;
}) {
  return (
    <div data-testid={testId} className="flex flex-col items-center justify-center px-6 py-12 text-center">
      <div className="mb-3 flex size-10 items-center justify-center rounded-full bg-slate-100 text-slate-400" data-testid="empty-icon">
        <Icon name={icon} className="size-5" />
      </div>
      <p className="text-sm font-medium text-slate-700">{title}</p>
      {children && <div className="mt-1 max-w-md text-sm text-slate-500">{children}</div>}
    </div>
  );
}

export function ErrorState({
  error,
  onRetry,
  title = 'Could not load this data',
}: {
  error: Error | null;
  onRetry?: () => void;
  title?: string;
}) {
  return (
    <div role="alert" data-testid="error" className="flex flex-col items-center justify-center px-6 py-10 text-center">
      <div className="mb-3 flex size-10 items-center justify-center rounded-full bg-rose-50 text-lg text-rose-500" aria-hidden>
        !
      </div>
      <p className="text-sm font-medium text-slate-800">{title}</p>
      <p className="mt-1 max-w-md break-words text-sm text-rose-700">{error?.message ?? 'unknown error'}</p>
      {onRetry && (
        <Button size="sm" className="mt-3" onClick={onRetry}>
          Try again
        </Button>
      )}
    </div>
  );
}

/** Shown above data that stopped refreshing: the last good data stays visible. */
export function StaleBanner({ error, updatedAt }: { error: Error | null; updatedAt: number }) {
  const now = useNow();
  if (!error) return null;
  return (
    <div role="status" className="mb-3 rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-800">
      Live updates failed ({error.message}); showing data from {formatAge(now - updatedAt)} ago.
    </div>
  );
}

/** An inline error or success message under a form or toolbar. */
export function Notice({ tone, children, testId }: { tone: 'error' | 'success' | 'info'; children: ReactNode; testId?: string }) {
  const cls =
    tone === 'error'
      ? 'border-rose-200 bg-rose-50 text-rose-800'
      : tone === 'success'
        ? 'border-emerald-200 bg-emerald-50 text-emerald-800'
        : 'border-sky-200 bg-sky-50 text-sky-800';
  return (
    <div role={tone === 'error' ? 'alert' : 'status'} data-testid={testId} className={cx('rounded-md border px-3 py-2 text-sm', cls)}>
      {children}
    </div>
  );
}
