import type { Metadata } from 'next';
import { EnqueueForm } from '@/components/enqueue/EnqueueForm';
import { PageHeader } from '@/components/ui/Card';

export const metadata: Metadata = { title: 'Enqueue' };

export default function EnqueuePage() {
  return (
    <>
      <PageHeader title="Enqueue" description="Create a task by hand: a registered handler with a JSON payload, or a SQL batch." />
      <EnqueueForm />
    </>
  );
}
