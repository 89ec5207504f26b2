'use client';
// What this database can run (`GET /api/handlers`: handler names, task kinds, dialect), shared by
// the enqueue form and the SQL Server-only controls of the Running and Workers pages.
import { useQuery } from '@tanstack/react-query';
import type { HandlersJson } from '@/lib/api/present';
import { fetchJson } from '../api';

export type StoreInfoJson = HandlersJson;

/** The handlers query (same key and fetcher as the enqueue form's handler list). */
export function useStoreInfo() {
  return useQuery({
    queryKey: ['handlers'],
    queryFn: ({ signal }) => fetchJson<StoreInfoJson>('/api/handlers', signal),
    staleTime: 30_000,
  });
}

/** true only once the server said it is SQL Server */
export function useIsMssql(): boolean {
  return useStoreInfo().data?.dialect === 'mssql';
}
