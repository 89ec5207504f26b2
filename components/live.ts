'use client';
// Live data: every page polls its JSON route once a second while the tab is visible.
import { keepPreviousData, useQuery, type UseQueryResult } from '@tanstack/react-query';
import { useRef, useSyncExternalStore } from 'react';
import { ApiError, fetchJson } from './api';

export const POLL_MS = 1000;

const isClientError = (e: unknown) => e instanceof ApiError && e.status >= 400 && e.status < 500;

/**
 * Poll a GET route every second (paused while the tab is hidden). A 4xx answer is final (no retry,
 * no polling until the page asks again); other errors keep polling, and the last error stays
 * reported while the next attempt runs instead of flashing back to "loading".
 */
export function useLive<T>(
  key: readonly unknown[],
  url: string,
  /** intervalMs: how often to poll (default POLL_MS) */
  opts: { enabled?: boolean; keepPrevious?: boolean; intervalMs?: number } = {},
): UseQueryResult<T, Error> {
  const q = useQuery<T, Error>({
    queryKey: key,
    queryFn: ({ signal }) => fetchJson<T>(url, signal),
    refetchInterval: (query) => (query.state.data === undefined && isClientError(query.state.error) ? false : (opts.intervalMs ?? POLL_MS)),
    refetchIntervalInBackground: false,
    retry: (count, err) => !isClientError(err) && count < 1,
    enabled: opts.enabled ?? true,
    placeholderData: opts.keepPrevious ? keepPreviousData : undefined,
  });
  const lastError = useRef<{ key: string; error: Error } | null>(null);
  const k = JSON.stringify(key);
  if (q.error) lastError.current = { key: k, error: q.error };
  else if (q.isSuccess || lastError.current?.key !== k) lastError.current = null;
  const sticky = q.isPending && q.data === undefined ? (lastError.current?.error ?? null) : null;
  if (!sticky) return q;
  return { ...q, isPending: false, isLoading: false, isError: true, status: 'error', error: sticky } as unknown as UseQueryResult<T, Error>;
}

// One shared clock for every relative time and ticking elapsed counter on the page.
let now = Date.now();
const listeners = new Set<() => void>();
let timer: ReturnType<typeof setInterval> | null = null;

function subscribe(fn: () => void) {
  listeners.add(fn);
  if (!timer) {
    now = Date.now();
    timer = setInterval(() => {
      now = Date.now();
      for (const l of listeners) l();
    }, 500);
  }
  return () => {
    listeners.delete(fn);
    if (listeners.size === 0 && timer) {
      clearInterval(timer);
      timer = null;
    }
  };
}

/** The current time, re-rendering twice a second. */
export function useNow(): number {
  return useSyncExternalStore(
    subscribe,
    () => now,
    () => now,
  );
}

/** Whether a media query matches; assumes a desktop width while rendering on the server. */
export function useMediaQuery(query: string, serverValue = true): boolean {
  return useSyncExternalStore(
    (fn) => {
      const m = window.matchMedia(query);
      m.addEventListener('change', fn);
      return () => m.removeEventListener('change', fn);
    },
    () => window.matchMedia(query).matches,
    () => serverValue,
  );
}

export function useIsDesktop(): boolean {
  return useMediaQuery('(min-width: 768px)');
}
