// Contract tests: bulk (to be written).
import type { StoreFactory } from './harness';

export function bulkTests(_factory: StoreFactory): void {}
