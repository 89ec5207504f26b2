// Failure groups: dead tasks grouped by the fingerprint of their last error (lib/engine/fingerprint.ts).
import { fingerprint } from '../engine/fingerprint';
import type { Store } from '../engine/ports';
import type { FailureGroupQuery, FingerprintGroup } from '../engine/types';

export function fingerprintGroupJson(g: FingerprintGroup) {
  return { ...g, firstAt: g.firstAt.toISOString(), lastAt: g.lastAt.toISOString() };
}

/** A page of failure groups by fingerprint (largest first). */
export async function failureGroupPage(store: Store, filter: FailureGroupQuery) {
  const page = await store.reads.failureGroupPage(filter);
  return { items: page.items.map(fingerprintGroupJson), nextCursor: page.nextCursor };
}

/** The fingerprint of a dead task's last error, for the page to match tasks to their group. */
export function taskFingerprint(t: { lastError: { number: number | null; message: string } | null }): string | null {
  return t.lastError ? fingerprint(t.lastError.number, t.lastError.message) : null;
}
