// Contract tests: why (to be written).
import type { StoreFactory } from './harness';

export function whyTests(_factory: StoreFactory): void {}
