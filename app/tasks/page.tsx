import type { Metadata } from 'next';
import { Suspense } from 'react';
import { Tasks } from '@/components/tasks/Tasks';
import { LoadingState } from '@/components/ui/States';

export const metadata: Metadata = { title: 'Tasks' };

export default function TasksPage() {
  return (
    <Suspense fallback={<LoadingState rows={8} />}>
      <Tasks />
    </Suspense>
  );
}
