// Contract tests: audit (to be written).
import type { StoreFactory } from './harness';

export function auditTests(_factory: StoreFactory): void {}
