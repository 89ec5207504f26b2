import type { Metadata } from 'next';
import { Suspense } from 'react';
import { Batches } from '@/components/batches/Batches';
import { LoadingState } from '@/components/ui/States';

export const metadata: Metadata = { title: 'Batches' };

export default function BatchesPage() {
  return (
    <Suspense fallback={<LoadingState rows={6} />}>
      <Batches />
    </Suspense>
  );
}
