import type { Metadata } from 'next';
import { Suspense } from 'react';
import { Queues } from '@/components/queues/Queues';
import { LoadingState } from '@/components/ui/States';

export const metadata: Metadata = { title: 'Queues' };

export default function QueuesPage() {
  return (
    <Suspense fallback={<LoadingState rows={6} />}>
      <Queues />
    </Suspense>
  );
}
