import type { Metadata } from 'next';
import { HistoryPage } from '@/components/history/HistoryPage';
import type { Params } from '@/lib/server/http';

export const dynamic = 'force-dynamic';

const decode = (s: string) => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};

export async function generateMetadata({ params }: Params<{ name: string }>): Promise<Metadata> {
  return { title: `Queue ${decode((await params).name)} · history` };
}

export default async function QueueHistoryPage({ params }: Params<{ name: string }>) {
  const name = decode((await params).name);
  return <HistoryPage kind="queue" name={name} />;
}
