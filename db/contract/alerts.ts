// Contract tests: alerts (to be written).
import type { StoreFactory } from './harness';

export function alertsTests(_factory: StoreFactory): void {}
