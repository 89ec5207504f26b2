import type { Metadata } from 'next';
import { connection } from 'next/server';
import { TaskDetail } from '@/components/task/TaskDetail';
import { serverConfig } from '@/lib/server/config';

export async function generateMetadata({ params }: { params: Promise<{ token: string }> }): Promise<Metadata> {
  const { token } = await params;
  return { title: `Task ${token.slice(0, 8)}` };
}

export default async function TaskPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  // read at request time (the process's READPAST_TRACE_URL), never at build time
  await connection();
  return <TaskDetail token={decodeURIComponent(token)} traceUrl={serverConfig().traceUrl} />;
}
