import type { Metadata } from 'next';
import { Suspense } from 'react';
import { Failed } from '@/components/failed/Failed';
import { LoadingState } from '@/components/ui/States';

export const metadata: Metadata = { title: 'Failed & poison' };

export default function FailedPage() {
  return (
    <Suspense fallback={<LoadingState rows={8} />}>
      <Failed />
    </Suspense>
  );
}
