import Link from 'next/link';
import { Card } from '@/components/ui/Card';
import { EmptyState } from '@/components/ui/States';

export default function NotFound() {
  return (
    <Card>
      <EmptyState title="Page not found" icon="help" testId="not-found">
        <Link href="/" className="text-brand-600 hover:underline">
          Back to the overview
        </Link>
      </EmptyState>
    </Card>
  );
}
