'use client';
// The throttle of the selected queue: its per-key limit, keyFrom path and rate limit edited live, the
// rate window now, and its busiest keys (GET /api/queues/{name}/keys).
import { ValidationError } from '@/lib/engine/errors';
import { keyFromProblem, parseRate, rateText } from '@/lib/engine/keys';
import { MAX_PER_KEY_LIMIT, MIN_PER_KEY_LIMIT } from '@/lib/engine/limits';
import { useLive } from '../live';
import { Card, CardHeader } from '../ui/Card';
import { ThrottleField, type ThrottleFieldSpec, type ThrottleParse } from './ThrottleField';
import { RateGauge, type RateJson } from './RateGauge';
import { TopKeys, type KeyJson } from './TopKeys';
import type { QueueJson } from './types';

const none = (typed: string) => typed.trim() === '' || typed.trim().toLowerCase() === 'none';
const NONE: ThrottleParse = { ok: true, send: null, text: 'none' };

export const THROTTLE_FIELDS: ThrottleFieldSpec[] = [
  {
    field: 'perKeyLimit',
    label: 'Per-key limit',
    textOf: (q) => (q.perKeyLimit === null ? 'none' : String(q.perKeyLimit)),
    parse: (typed) => {
      if (none(typed)) return NONE;
      const n = /^\s*\d{1,6}\s*$/.test(typed) ? Number(typed) : NaN;
      if (!(n >= MIN_PER_KEY_LIMIT && n <= MAX_PER_KEY_LIMIT))
        return { ok: false, error: `a whole number from ${MIN_PER_KEY_LIMIT} to ${MAX_PER_KEY_LIMIT}, or empty for none` };
      return { ok: true, send: n, text: String(n) };
    },
    placeholder: 'none',
    hint: 'Running tasks of each key, at most (on top of the limit). Lowering it stops nothing.',
    numeric: true,
  },
  {
    field: 'keyFrom',
    label: 'Key from payload',
    textOf: (q) => q.keyFrom ?? 'none',
    parse: (typed) => {
      if (none(typed)) return NONE;
      const problem = keyFromProblem(typed.trim());
      return problem ? { ok: false, error: problem } : { ok: true, send: typed.trim(), text: typed.trim() };
    },
    placeholder: '$.customerId',
    hint: 'A JSON path: tasks enqueued without a key get the value found there as their key.',
  },
  {
    field: 'rateLimit',
    label: 'Rate limit',
    textOf: (q) => rateText(q.rateLimit),
    parse: (typed) => {
      try {
        const r = parseRate(typed.trim() === '' ? 'none' : typed, 'rateLimit');
        return r === null ? NONE : { ok: true, send: rateText(r), text: rateText(r) };
      } catch (err) {
        if (err instanceof ValidationError) return { ok: false, error: err.message.slice(err.field.length + 2) };
        throw err;
      }
    },
    placeholder: '60/1m',
    hint: "Starts per window: 60/1m, 20/2s, 1000/1h; add 'per key' for a window per key.",
  },
];

export function ThrottlePanel({ q }: { q: QueueJson }) {
  const live = useLive<{ keys: KeyJson[]; rate: RateJson | null }>(
    ['queue-keys', q.name],
    `/api/queues/${encodeURIComponent(q.name)}/keys?limit=20`,
  );
  const keys = live.data?.keys ?? q.keys;
  const rate = live.data ? live.data.rate : q.rate;
  return (
    <Card className="mb-5" testId="throttle-card">
      <CardHeader
        title={
          <>
            Throttle of <span className="font-mono">{q.name}</span>
          </>
        }
        subtitle="Keys take turns within the queue (priority still first). Changes apply to the next claim and are recorded."
      />
      <div className="grid gap-4 p-4 md:grid-cols-3">
        {THROTTLE_FIELDS.map((spec) => (
          <ThrottleField key={spec.field} q={q} spec={spec} />
        ))}
      </div>
      <div className="grid gap-4 border-t border-slate-100 p-4 md:grid-cols-2">
        <section data-testid="throttle-window">
          <h3 className="mb-2 text-xs font-medium uppercase tracking-wide text-slate-400">Rate window</h3>
          {q.rate ? <RateGauge rate={q.rate} wide /> : <p className="text-xs text-slate-500">No rate limit: starts are not counted.</p>}
        </section>
        <section>
          <h3 className="mb-2 text-xs font-medium uppercase tracking-wide text-slate-400">Top keys (running, then pending)</h3>
          {keys.length ? (
            <TopKeys queue={q.name} keys={keys} perKeyLimit={q.perKeyLimit} testId="throttle-keys" />
          ) : (
            <p className="text-xs text-slate-500" data-testid="throttle-keys-empty">
              No key has running or pending tasks.
            </p>
          )}
        </section>
      </div>
    </Card>
  );
}
