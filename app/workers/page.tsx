import type { Metadata } from 'next';
import { Workers } from '@/components/workers/Workers';

export const metadata: Metadata = { title: 'Workers' };

export default function WorkersPage() {
  return <Workers />;
}
