import type { Metadata } from 'next';
import { Suspense } from 'react';
import { Schedules } from '@/components/schedules/Schedules';
import { LoadingState } from '@/components/ui/States';

export const metadata: Metadata = { title: 'Schedules' };

export default function SchedulesPage() {
  return (
    <Suspense fallback={<LoadingState rows={6} />}>
      <Schedules />
    </Suspense>
  );
}
