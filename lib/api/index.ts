// readpast as a library: open a database, register handlers, enqueue, run a pool, read the views.
//   import { openReadpast } from 'readpast';      (the package's main export: dist/index.js, built from here)
export {
  DEFAULT_DATABASE_URL,
  databaseUrl,
  diagnoseDatabase,
  loadHandlers,
  openReadpast,
  openStore,
  type HandlerModule,
  type OpenOptions,
} from './open';
export { MAX_BULK, Readpast, type EnqueueOptions, type QueueJson, type ReadpastOptions } from './readpast';
export type { ReadpastTransaction } from './transaction';
export type { ExecuteParams, ExecuteResult, MigrateReport, RetryFailedResult, TransactionOptions } from '../engine/types';
export type { KeyUsage, QueuePatch, RateLimit, RateUsage } from '../engine/types';
export type { BatchJson, DoctorJson, HandlersJson, ProcedureParametersJson, StatusJson } from './present';
export type { WaitOptions, WaitResult } from './wait';
export type { FlowJson, FlowSummaryJson } from './flows';
export type { FlowRequest } from '../engine/flows';
export type { Dependency, FlowFilter, FlowResult, ParentFailurePolicy, ParentResult } from '../engine/types';
export type { ScheduleDetailJson, ScheduleJson } from './present';
export type { EventDetailJson, EventJson, StepJson } from './present';
export type { EventFilterRequest, SendEventOptions } from './durable';
export type { DurableContext, StepTransaction, TransactionStepOptions, WaitForEventOptions } from '../engine/durable';
export type { EventMatch, MatchValue, SendEventResult } from '../engine/types';
export { loadDeclaredSchedules } from './schedules';
export { ConflictError, NonRetryableError, NotFoundError, TaskError, ValidationError } from '../engine/errors';
export { HandlerRegistry, defaultRegistry, type Handler, type HandlerContext } from '../engine/handlers';
export type { Pool, PoolOptions } from '../engine/pool';
export type { PoolConfig } from './runtime';
export type { DashboardHandle, DashboardOptions } from './dashboard';
export {
  defineHandlers,
  type BuiltinHandlers,
  type CommandOf,
  type EnqueueArg,
  type EnqueueResultOf,
  type EnqueueReturn,
  type FlowArg,
  type FlowNode,
  type FlowNodeFields,
  type FlowNodeShape,
  type HandlerMap,
  type HandlerNode,
  type HandlerTask,
  type NodeTaskOptions,
  type PayloadOf,
  type ResultOf,
  type SqlKind,
  type SqlNode,
  type SqlTask,
  type StatusOf,
  type TaskOptions,
  type TaskToken,
  type TypedHandler,
  type TypedStatusJson,
  type UntypedHandlers,
  type WithBuiltins,
} from './typed';
export type { EnqueueRequest } from '../engine/validation';
export type { ResolvedAddress, WebhookPolicyOptions, WebhookResolver } from '../engine/webhook-guard';
