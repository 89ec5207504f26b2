#!/usr/bin/env node
// `npm run demo`: enqueue the demo workload (lib/api/demo.ts) into READPAST_DATABASE_URL
// (default sqlite:data/readpast.db). Workers — `npm start` or `readpast worker` — then run it.
import { tsImport } from 'tsx/esm/api';

const { openReadpast } = await tsImport('../lib/api/open.ts', import.meta.url);
const { loadDemoWorkload } = await tsImport('../lib/api/demo.ts', import.meta.url);

let readpast;
try {
  readpast = await openReadpast({ url: process.env.READPAST_DATABASE_URL || undefined });
} catch (err) {
  console.error(`readpast: cannot open the database: ${err.message}`);
  process.exit(1);
}
try {
  const count = await loadDemoWorkload(readpast, { caller: 'demo' });
  console.log(`readpast: enqueued ${count} demo tasks into ${readpast.description} (queues default, emails, reports, etl)`);
} catch (err) {
  console.error(`readpast: ${err.message}`);
  process.exitCode = 1;
} finally {
  await readpast.close();
}
