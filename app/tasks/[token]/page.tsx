import type { Metadata } from 'next';
import { TaskDetail } from '@/components/task/TaskDetail';

export async function generateMetadata({ params }: { params: Promise<{ token: string }> }): Promise<Metadata> {
  const { token } = await params;
  return { title: `Task ${token.slice(0, 8)}` };
}

export default async function TaskPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  return <TaskDetail token={decodeURIComponent(token)} />;
}
