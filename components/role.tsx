'use client';
// What the signed-in user may do, known to every component: a viewer (READPAST_VIEWERS) sees the pages
// without the controls the server would refuse it (every mutation answers 403 to a viewer anyway).
import { createContext, useContext, type ReactNode } from 'react';

export type Role = 'operator' | 'viewer';

const RoleContext = createContext<{ role: Role; user: string }>({ role: 'operator', user: 'loopback' });

export function RoleProvider({ role, user, children }: { role: Role; user: string; children: ReactNode }) {
  return <RoleContext.Provider value={{ role, user }}>{children}</RoleContext.Provider>;
}

export function useRole(): { role: Role; user: string } {
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
