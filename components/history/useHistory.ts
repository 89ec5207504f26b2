'use client';
// History reads for the charts: polled at a pace that fits the range (a 30-day chart does not change
// every second), the previous range kept on screen while the next loads.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { HistoryJson, HistoryRange, SparklinesJson } from '@/lib/api/history';
import { fetchJson } from '../api';

export type { HistoryJson, HistoryRange };
export type HistoryBucketJson = HistoryJson['buckets'][number];

export const RANGES: { range: HistoryRange; label: string }[] = [
  { range: '15m', label: '15 min' },
  { range: '1h', label: '1 h' },
  { range: '24h', label: '24 h' },
  { range: '7d', label: '7 d' },
  { range: '30d', label: '30 d' },
];

const POLL: Record<HistoryRange, number> = { '15m': 1000, '1h': 5000, '24h': 30_000, '7d': 60_000, '30d': 120_000 };

export function historyUrl(range: HistoryRange, filter: { queue?: string; command?: string } = {}): string {
  const p = new URLSearchParams({ range });
  if (filter.queue) p.set('queue', filter.queue);
  if (filter.command) p.set('command', filter.command);
  return `/api/history?${p}`;
}

export function useHistory(range: HistoryRange, filter: { queue?: string; command?: string } = {}) {
  return useQuery<HistoryJson, Error>({
    queryKey: ['history', range, filter.queue ?? null, filter.command ?? null],
    queryFn: ({ signal }) => fetchJson<HistoryJson>(historyUrl(range, filter), signal),
    refetchInterval: POLL[range],
    refetchIntervalInBackground: false,
    placeholderData: keepPreviousData,
    retry: 1,
  });
}

/** Succeeded per queue over the last hour: one request for every sparkline on the page. */
export function useSparklines() {
  return useQuery<SparklinesJson, Error>({
    queryKey: ['history-sparklines'],
    queryFn: ({ signal }) => fetchJson<SparklinesJson>('/api/history/queues?range=1h', signal),
    refetchInterval: 10_000,
    refetchIntervalInBackground: false,
    retry: 1,
  });
}
