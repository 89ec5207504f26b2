'use client';
// Run a server action from a button: busy state, a toast with the outcome, fresh data afterwards.
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useState } from 'react';
import type { ActionResult } from '@/app/actions';
import { useToast } from './ui/Toast';

type Failure = { ok: false; error: string; field?: string };

export function useAction<A extends unknown[], T extends object>(
  action: (...args: A) => Promise<ActionResult<T>>,
  opts: { success?: (r: { ok: true } & T) => string | null; toastErrors?: boolean } = {},
) {
  const [busy, setBusy] = useState(false);
  const qc = useQueryClient();
  const toast = useToast();
  const { success, toastErrors = true } = opts;

  const run = useCallback(
    async (...args: A): Promise<ActionResult<T>> => {
      setBusy(true);
      let r: ActionResult<T>;
      try {
        r = await action(...args);
      } catch (err) {
        r = { ok: false, error: err instanceof Error ? err.message : 'the request failed' } satisfies Failure;
      } finally {
        setBusy(false);
      }
      if (r.ok) {
        const text = success?.(r);
        if (text) toast('success', text);
        void qc.invalidateQueries();
      } else if (toastErrors) {
        toast('error', r.error);
      }
      return r;
    },
    [action, qc, toast, success, toastErrors],
  );

  return { run, busy };
}
