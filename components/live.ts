'use client';
// Live data: every page polls its JSON route once a second while the tab is visible.
import { keepPreviousData, useQuery, type UseQueryResult } from '@tanstack/react-query';
import { useSyncExternalStore } from 'react';
import { fetchJson } from './api';

export const POLL_MS = 1000;

/** Poll a GET route every second (paused while the tab is hidden). */
export function useLive<T>(key: readonly unknown[], url: string, opts: { enabled?: boolean; keepPrevious?: boolean } = {}): UseQueryResult<T, Error> {
  return useQuery<T, Error>({
    queryKey: key,
    queryFn: ({ signal }) => fetchJson<T>(url, signal),
    refetchInterval: POLL_MS,
    refetchIntervalInBackground: false,
    enabled: opts.enabled ?? true,
    placeholderData: opts.keepPrevious ? keepPreviousData : undefined,
  });
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
  return useSyncExternalStore(subscribe, () => now, () => now);
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
