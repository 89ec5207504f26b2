// Shared steps of the browser tests: enqueue through the JSON API and wait for a task's state.
import { expect, type APIRequestContext } from '@playwright/test';

export interface TaskStatus {
  token: string;
  status: string;
  attempts: number;
  maxAttempts: number;
  history: { attempt: number; outcome: string; session: number | null; errorMessage: string | null }[];
}

/** A name no other test (or an earlier run against a reused server) has used. */
export function unique(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 7)}`;
}

export async function enqueue(request: APIRequestContext, body: Record<string, unknown>): Promise<string> {
  const res = await request.post('/api/tasks', { data: body });
  expect(res.status(), await res.text()).toBe(201);
  const json = (await res.json()) as { token: string };
  expect(json.token).toMatch(/^[0-9a-f-]{36}$/);
  return json.token;
}

export async function taskStatus(request: APIRequestContext, token: string): Promise<TaskStatus> {
  const res = await request.get(`/api/tasks/${token}`);
  expect(res.status()).toBe(200);
  return (await res.json()) as TaskStatus;
}

export async function waitForStatus(request: APIRequestContext, token: string, status: string, timeout = 20_000): Promise<TaskStatus> {
  await expect.poll(async () => (await taskStatus(request, token)).status, { timeout, intervals: [200] }).toBe(status);
  return taskStatus(request, token);
}

/** Total number of tasks in every queue and status. */
export async function taskCount(request: APIRequestContext): Promise<number> {
  const res = await request.get('/api/stats');
  expect(res.status()).toBe(200);
  const stats = (await res.json()) as { totals: Record<string, number> };
  return Object.values(stats.totals).reduce((a, b) => a + b, 0);
}
