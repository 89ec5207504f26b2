// What the dashboard may offer for this database: handler names, the task kinds the store can run
// and its dialect (`GET /api/handlers`), so SQL Server-only controls appear only where they work.
import type { Dialect } from '@/lib/engine/store';
import type { TaskKind } from '@/lib/engine/types';
import type { ServerEngine } from './engine';
import { handlerNames } from './views';

export interface HandlersJson {
  handlers: string[];
  kinds: TaskKind[];
  dialect: Dialect;
}

export async function handlersView(engine: ServerEngine): Promise<HandlersJson> {
  const { store } = engine.readpast;
  return { handlers: await handlerNames(engine), kinds: [...store.kinds], dialect: store.dialect };
}
