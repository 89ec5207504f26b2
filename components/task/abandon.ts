// Why an attempt was abandoned, in words (the rescue records it: lib/engine/types.ts AbandonReason).
export const ABANDON_TEXT: Record<string, { short: string; long: string }> = {
  lease_lost: {
    short: 'lease lost, worker alive',
    long: 'abandoned: lease lost while its worker was alive (its heartbeats came too late to renew the lease)',
  },
  worker_lost: {
    short: 'worker stopped',
    long: 'abandoned: its worker stopped renewing the lease (crashed, killed or cut off)',
  },
};

/** How an abandoned attempt ended, for "Attempt 1 of 3 …" (no reason: recorded before reasons were). */
export function abandonedPhrase(reason: string | null | undefined): string {
  if (reason === 'lease_lost') return 'was abandoned (lease lost while its worker was alive)';
  if (reason === 'worker_lost') return 'was abandoned (its worker stopped: crashed, killed or cut off)';
  return 'was abandoned (its lease expired)';
}
