import Link from 'next/link';
import { shortToken } from '../format';

export function TokenLink({ token, testId }: { token: string; testId?: string }) {
  return (
    <Link
      href={`/tasks/${token}`}
      title={token}
      data-testid={testId}
      className="whitespace-nowrap font-mono text-xs text-brand-600 hover:text-brand-700 hover:underline"
    >
      {shortToken(token)}
    </Link>
  );
}
