// For the contract suite on a shared SQL Server database: empty every readpast table between tests.
// Never called by the store itself.
import { sql } from './connection';
import { RESET_ALL_TABLES } from './sql/migrations';
import { parseMssqlUrl, toConfig } from './url';

export async function emptyTables(url: string): Promise<void> {
  const pool = new sql.ConnectionPool(toConfig(parseMssqlUrl(url), { appName: 'readpast tests', pool: { min: 0, max: 1 } }));
  // an unhandled 'error' event on a pool ends the process
  pool.on('error', () => {});
  await pool.connect();
  try {
    await pool.request().batch(RESET_ALL_TABLES);
  } finally {
    await pool.close();
  }
}
