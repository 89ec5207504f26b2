import type { Metadata } from 'next';
import { BatchDetail } from '@/components/batches/BatchDetail';

export async function generateMetadata({ params }: { params: Promise<{ id: string }> }): Promise<Metadata> {
  const { id } = await params;
  return { title: `Batch ${id}` };
}

export default async function BatchPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <BatchDetail id={decodeURIComponent(id)} />;
}
