// Contract tests: browser (to be written).
import type { StoreFactory } from './harness';

export function browserTests(_factory: StoreFactory): void {}
