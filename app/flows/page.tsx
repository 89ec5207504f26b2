import type { Metadata } from 'next';
import { Suspense } from 'react';
import { Flows } from '@/components/flows/Flows';
import { LoadingState } from '@/components/ui/States';

export const metadata: Metadata = { title: 'Flows' };

export default function FlowsPage() {
  return (
    <Suspense fallback={<LoadingState rows={6} />}>
      <Flows />
    </Suspense>
  );
}
