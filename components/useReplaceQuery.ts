'use client';
// Filters and cursors live in the URL: replace the query string (no new history entry, no scroll).
import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { useCallback, useRef } from 'react';
import { composeQuery } from './query-compose';

/**
 * Replace the page's query string with `params` (empty values dropped). Callers build `params` from the
 * query string they rendered; a change made before an earlier one has rendered (a tab clicked, then a
 * filter applied at once) builds on that earlier one instead of undoing it — see composeQuery.
 */
export function useReplaceQuery(): (params: Record<string, string>) => void {
  const router = useRouter();
  const pathname = usePathname();
  const sp = useSearchParams();
  const rendered = sp?.toString() ?? '';
  const renderedRef = useRef(rendered);
  renderedRef.current = rendered;
  // the query strings asked for since the one rendered, oldest first
  const chain = useRef<string[]>([]);
  return useCallback(
    (params: Record<string, string>) => {
      const { search, chain: next } = composeQuery(chain.current, renderedRef.current, params);
      chain.current = next;
      router.replace(search ? `${pathname}?${search}` : pathname, { scroll: false });
    },
    [router, pathname],
  );
}
