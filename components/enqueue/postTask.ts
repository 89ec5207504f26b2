'use client';
// Enqueue through the JSON API (`POST /api/tasks`, the same validation as the server action): used
// by the procedure form so its request is exactly the documented enqueue body.
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useState } from 'react';
import type { ActionResult } from '@/app/actions';

export async function postTask(input: Record<string, unknown>): Promise<ActionResult<{ token: string }>> {
  let res: Response;
  try {
    res = await fetch('/api/tasks', {
      method: 'POST',
      cache: 'no-store',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(input),
    });
  } catch {
    return { ok: false, error: 'the dashboard server cannot be reached' };
  }
  type Body = { token?: unknown; error?: unknown; field?: unknown } | null;
  let body: Body;
  try {
    body = (await res.json()) as Body;
  } catch {
    body = null;
  }
  if (res.ok && typeof body?.token === 'string') return { ok: true, token: body.token };
  const error = typeof body?.error === 'string' ? body.error : `${res.status} ${res.statusText || 'error'}`;
  return typeof body?.field === 'string' ? { ok: false, error, field: body.field } : { ok: false, error };
}

/** `postTask` with a busy flag; fresh data everywhere after a success. */
export function usePostTask() {
  const [busy, setBusy] = useState(false);
  const qc = useQueryClient();
  const run = useCallback(
    async (input: Record<string, unknown>) => {
      setBusy(true);
      try {
        const r = await postTask(input);
        if (r.ok) void qc.invalidateQueries();
        return r;
      } finally {
        setBusy(false);
      }
    },
    [qc],
  );
  return { run, busy };
}
