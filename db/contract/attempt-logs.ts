// Contract tests: attempt-logs (to be written).
import type { StoreFactory } from './harness';

export function attemptLogsTests(_factory: StoreFactory): void {}
