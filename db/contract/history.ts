// Contract tests: history (to be written).
import type { StoreFactory } from './harness';

export function historyTests(_factory: StoreFactory): void {}
