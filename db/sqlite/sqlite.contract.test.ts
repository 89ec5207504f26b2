// The Store contract on the embedded SQLite store: a fresh database file per test.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { storeContract } from '../contract/suite';
import { openSqliteStore } from './store';

storeContract('sqlite', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'readpast-contract-'));
  const store = await openSqliteStore(join(dir, 'contract.db'));
  return {
    store,
    cleanup: async () => {
      try {
        await store.close();
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
});
