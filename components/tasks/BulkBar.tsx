'use client';
// Bulk actions over the Tasks page's selection or over everything its filter matches (placeholder: the
// actions arrive with app/tasks/actions.ts).

export interface BulkBarProps {
  /** tokens ticked on the page; empty: none ticked (the bar then offers "all matching the filter") */
  selected: string[];
  /** the page's filter as its URL query string, without '?' (e.g. `status=dead&queue=reports`) */
  query: string;
  /** how many tasks the filter matches, when known (tab counts); null when not known exactly */
  matching: number | null;
  /** called after an action finished: clear the selection, refetch */
  onDone: () => void;
}

export function BulkBar(_props: BulkBarProps) {
  return null;
}
