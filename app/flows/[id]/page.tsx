import type { Metadata } from 'next';
import { FlowDetail } from '@/components/flows/FlowDetail';

export async function generateMetadata({ params }: { params: Promise<{ id: string }> }): Promise<Metadata> {
  const { id } = await params;
  return { title: `Flow ${id}` };
}

export default async function FlowPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <FlowDetail id={decodeURIComponent(id)} />;
}
