'use client';
// Keyset pages newest first: the cursor is in the URL, the cursors of the newer pages visited are kept to
// step back with "Newer" (forgotten when the filter — `scope` — changes); and the footer with both buttons.
import { useState, type ReactNode } from 'react';
import { Button } from './Button';

export function useKeysetPages(scope: string, cursor: string, go: (cursor: string) => void) {
  const [trail, setTrail] = useState<{ scope: string; cursors: string[] }>({ scope, cursors: [] });
  const cursors = trail.scope === scope ? trail.cursors : [];
  return {
    older: (next: number | null | undefined) => {
      if (next == null) return;
      setTrail({ scope, cursors: [...cursors, cursor] });
      go(String(next));
      window.scrollTo({ top: 0 });
    },
    newer: () => {
      setTrail({ scope, cursors: cursors.slice(0, -1) });
      go(cursors.length ? cursors[cursors.length - 1]! : '');
    },
  };
}

export function Pager({
  info,
  cursor,
  nextCursor,
  onNewer,
  onOlder,
  testId,
}: {
  info: ReactNode;
  cursor: string;
  nextCursor: number | null | undefined;
  onNewer: () => void;
  onOlder: () => void;
  /** `<testId>-page-info`, `<testId>-newer`, `<testId>-older` */
  testId: string;
}) {
  return (
    <div className="flex flex-wrap items-center justify-between gap-2 border-t border-slate-100 px-4 py-3">
      <p className="text-xs text-slate-500" data-testid={`${testId}-page-info`}>
        {info}
      </p>
      <div className="flex gap-2">
        <Button size="sm" onClick={onNewer} disabled={!cursor} data-testid={`${testId}-newer`}>
          ← Newer
        </Button>
        <Button size="sm" onClick={onOlder} disabled={nextCursor == null} data-testid={`${testId}-older`}>
          Older →
        </Button>
      </div>
    </div>
  );
}
