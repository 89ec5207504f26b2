import type { Metadata } from 'next';
import { Suspense } from 'react';
import { ExecutionLog } from '@/components/log/ExecutionLog';
import { LoadingState } from '@/components/ui/States';

export const metadata: Metadata = { title: 'Execution log' };

export default function LogPage() {
  return (
    <Suspense fallback={<LoadingState rows={8} />}>
      <ExecutionLog />
    </Suspense>
  );
}
