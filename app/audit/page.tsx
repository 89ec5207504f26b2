import type { Metadata } from 'next';
import { Suspense } from 'react';
import { Audit } from '@/components/audit/Audit';
import { LoadingState } from '@/components/ui/States';

export const metadata: Metadata = { title: 'Audit' };

export default function AuditPage() {
  return (
    <Suspense fallback={<LoadingState rows={8} />}>
      <Audit />
    </Suspense>
  );
}
