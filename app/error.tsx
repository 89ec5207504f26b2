'use client';
import { Card } from '@/components/ui/Card';
import { ErrorState } from '@/components/ui/States';

export default function PageError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <Card>
      <ErrorState title="This page failed to render" error={error} onRetry={reset} />
    </Card>
  );
}
