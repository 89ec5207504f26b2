import type { Metadata } from 'next';
import { Suspense } from 'react';
import { Alerts } from '@/components/alerts/Alerts';
import { LoadingState } from '@/components/ui/States';

export const metadata: Metadata = { title: 'Alerts' };

export default function AlertsPage() {
  return (
    <Suspense fallback={<LoadingState rows={6} />}>
      <Alerts />
    </Suspense>
  );
}
