// The Store conformance suite: every dialect in db/ runs it. Written only against the Store
// interface; each test gets a fresh, migrated, empty store from the factory.
import { describe } from 'vitest';
import { aggregateTests } from './aggregates';
import { alertsTests } from './alerts';
import { attemptLogsTests } from './attempt-logs';
import { auditTests } from './audit';
import { browserTests } from './browser';
import { bulkTests } from './bulk';
import { historyTests } from './history';
import { whyTests } from './why';
import { claimTests } from './claim';
import { claimedTests } from './claimed';
import { claimModelTests, type ClaimModelOptions } from './claim-model';
import { countsTests } from './counts';
import { dedupTests } from './dedup';
import { doctorTests } from './doctor';
import { durableStepTests } from './durable-steps';
import { durableWaitTests } from './durable-waits';
import { fencingTests } from './fencing';
import { throttleTests } from './throttle';
import type { StoreFactory } from './harness';
import { lifecycleTests } from './lifecycle';
import { limitTests } from './limits';
import { listTests } from './lists';
import { operatorTests } from './operators';
import { pruningTests } from './pruning';
import { retryTests } from './retries';
import { scheduleTests } from './schedules';
import { stageTests } from './stages';
import { transactionTests } from './transactions';
import { workerTests } from './workers';
import { workflowTests } from './workflows';
import { workflowOperationTests } from './workflow-operations';
import { workflowReadTests } from './workflow-reads';
import { workflowRearmTests } from './workflow-rearm';
import { poolSettingsTests } from './pool-settings';
import { tracingTests } from './tracing';

export type { StoreFactory, StoreUnderTest } from './harness';

export interface ContractOptions {
  /** the randomized claim model's steps and time per seed (a slow server: fewer steps or more time) */
  claimModel?: ClaimModelOptions;
}

export function storeContract(name: string, factory: StoreFactory, opts: ContractOptions = {}): void {
  describe(`Store contract: ${name}`, () => {
    lifecycleTests(factory);
    claimTests(factory);
    claimedTests(factory);
    fencingTests(factory);
    retryTests(factory);
    operatorTests(factory);
    dedupTests(factory);
    pruningTests(factory);
    countsTests(factory);
    listTests(factory);
    aggregateTests(factory);
    workerTests(factory);
    limitTests(factory);
    throttleTests(factory);
    stageTests(factory);
    scheduleTests(factory);
    transactionTests(factory);
    doctorTests(factory);
    claimModelTests(factory, opts.claimModel);
    alertsTests(factory);
    attemptLogsTests(factory);
    auditTests(factory);
    browserTests(factory);
    bulkTests(factory);
    historyTests(factory);
    whyTests(factory);
    poolSettingsTests(factory);
    workflowTests(factory);
    workflowOperationTests(factory);
    workflowReadTests(factory);
    workflowRearmTests(factory);
    tracingTests(factory);
    durableStepTests(factory);
    durableWaitTests(factory);
  });
}
