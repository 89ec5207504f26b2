// Durable handlers are not written for SQL Server yet: its store says so clearly — 409 at the front door (sendEvent,
// wake), a failure without retry for a handler's step — and reads answer "none". No server needed: the refusal
// comes before any statement.
import { describe, expect, it } from 'vitest';
import { commandSlice, DURABLE_NEEDS_SQLITE, notYet, readSlice } from './durable';

describe('durable handlers on SQL Server (not in this version)', () => {
  it('refuses events and wake-ups with a 409 that says they need SQLite', async () => {
    // ConflictError: the front door answers 409 with the message (lib/server/http.ts describeError)
    for (const call of [commandSlice.sendEvent, commandSlice.wake]) {
      await expect(call()).rejects.toMatchObject({ name: 'ConflictError', message: DURABLE_NEEDS_SQLITE });
    }
    expect(DURABLE_NEEDS_SQLITE).toMatch(/need a SQLite store/);
  });

  it("fails a handler's step at once, without retry", async () => {
    await expect(notYet()).rejects.toMatchObject({ name: 'NonRetryableError', retryable: false, message: DURABLE_NEEDS_SQLITE });
  });

  it('reads no step, event or suspended task', async () => {
    expect(await readSlice.listSteps()).toEqual([]);
    expect(await readSlice.listEvents()).toEqual({ items: [], nextCursor: null });
    expect(await readSlice.suspendedCounts()).toEqual([]);
  });
});
