'use client';
// Filters and cursors live in the URL: replace the query string (no new history entry, no scroll).
import { usePathname, useRouter } from 'next/navigation';
import { useCallback } from 'react';

export function useReplaceQuery(): (params: Record<string, string>) => void {
  const router = useRouter();
  const pathname = usePathname();
  return useCallback(
    (params: Record<string, string>) => {
      const next = new URLSearchParams();
      for (const [k, v] of Object.entries(params)) if (v) next.set(k, v);
      const s = next.toString();
      router.replace(s ? `${pathname}?${s}` : pathname, { scroll: false });
    },
    [router, pathname],
  );
}
