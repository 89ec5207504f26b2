'use client';
// What the signed-in user may do, known to every component: a viewer (READPAST_VIEWERS) sees the pages
// without the controls the server would refuse it (every mutation answers 403 to a viewer anyway). The
// role is asked once (GET /api/me), so pages stay statically rendered; until it is known, controls show.
import { useQuery } from '@tanstack/react-query';
import { createContext, useContext, type ReactNode } from 'react';
import { fetchJson } from './api';

export type Role = 'operator' | 'viewer';

interface Me {
  role: Role;
  user: string;
  /** signed in with the provider: a sign-out control is shown */
  signOut?: boolean;
}

const RoleContext = createContext<Me>({ role: 'operator', user: 'loopback' });

export function RoleProvider({ children }: { children: ReactNode }) {
  const me = useQuery<Me>({
    queryKey: ['me'],
    queryFn: ({ signal }) => fetchJson<Me>('/api/me', signal),
    staleTime: Number.POSITIVE_INFINITY,
  });
  return <RoleContext.Provider value={me.data ?? { role: 'operator', user: '' }}>{children}</RoleContext.Provider>;
}

export function useRole(): Me {
  return useContext(RoleContext);
}

/** whether the user may change things (the operator) */
export function useCanOperate(): boolean {
  return useContext(RoleContext).role === 'operator';
}

/** renders its children for the operator only; `fallback` (e.g. a read-only value) for a viewer */
export function OperatorOnly({ children, fallback = null }: { children: ReactNode; fallback?: ReactNode }) {
  return useCanOperate() ? children : fallback;
}
