import Link from 'next/link';
import { Badge, type Tone } from '../ui/Badge';

export const BATCH_TONE: Record<string, Tone> = {
  open: 'blue',
  released: 'amber',
  completed: 'green',
  aborted: 'red',
  cancelled: 'gray',
};

export function BatchStatusBadge({ status, testId }: { status: string; testId?: string }) {
  return (
    <Badge tone={BATCH_TONE[status] ?? 'gray'} dot pulse={status === 'released'} testId={testId}>
      {status}
    </Badge>
  );
}

/** "batch 12 · stage 3", linking to the batch's page. */
export function BatchLink({ id, stage, className }: { id: number; stage?: number | null; className?: string }) {
  return (
    <Link
      href={`/batches/${id}`}
      className={className ?? 'whitespace-nowrap text-violet-700 hover:underline'}
      title={`Batch ${id}: progress per stage, timeline, tasks`}
    >
      batch {id}
      {stage !== null && stage !== undefined && ` · stage ${stage}`}
    </Link>
  );
}
