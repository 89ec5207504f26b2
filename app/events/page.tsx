import type { Metadata } from 'next';
import { Suspense } from 'react';
import { Events } from '@/components/events/Events';
import { LoadingState } from '@/components/ui/States';

export const metadata: Metadata = { title: 'Events' };

export default function EventsPage() {
  return (
    <Suspense fallback={<LoadingState rows={6} />}>
      <Events />
    </Suspense>
  );
}
