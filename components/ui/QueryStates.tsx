'use client';
// One live list's states, the same on every page: loading (skeleton rows), its error, empty, or its content.
import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { ErrorState, LoadingState } from './States';

/** A page of a list (`{ items }`) with none. */
const noItems = (data: unknown): boolean => {
  const items = (data as { items?: unknown } | null)?.items;
  return Array.isArray(items) && items.length === 0;
};

/**
 * What a query shows. An error with data still at hand (a refresh that failed): by default the data stays on screen
 * and, with none, the error offers Try again. `errorOverData`: the error replaces it — a filtered page, whose data at
 * hand is the previous filter's and whose errors (a bad filter) a retry cannot mend.
 */
export function QueryStates<T>({
  query,
  rows,
  isEmpty = noItems,
  empty,
  errorOverData = false,
  children,
}: {
  query: UseQueryResult<T, Error>;
  /** skeleton rows while loading */
  rows?: number;
  /** whether the data is an empty list, `empty` shown instead of `children` (default: a page whose `items` are none) */
  isEmpty?: (data: T) => boolean;
  empty: ReactNode;
  errorOverData?: boolean;
  children: (data: T) => ReactNode;
}) {
  if (query.isPending) return <LoadingState rows={rows} />;
  if (errorOverData && query.isError) return <ErrorState error={query.error} />;
  if (query.data === undefined) return <ErrorState error={query.error} onRetry={() => void query.refetch()} />;
  return isEmpty(query.data) ? empty : children(query.data);
}
