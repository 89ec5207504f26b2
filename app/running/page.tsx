import type { Metadata } from 'next';
import { Running } from '@/components/running/Running';

export const metadata: Metadata = { title: 'Running' };

export default function RunningPage() {
  return <Running />;
}
