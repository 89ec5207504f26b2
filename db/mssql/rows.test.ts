// SQL Server's column converters on rows as the driver returns them (bigint as string, uniqueidentifier
// upper-case, bit as boolean, datetime2 as Date): the shared mappers (db/shared) give the engine's types.
import { describe, expect, it } from 'vitest';
import { alertRule, auditRecord, metricPoint, queueChange, scheduleFire, taskView, type TaskRow } from './rows';

const T = 'A1B2C3D4-0000-7000-8000-0000000000AA';
const at = new Date('2026-01-02T03:04:05.678Z');

describe('SQL Server rows', () => {
  it('maps a task row: ids as numbers, the token lower-case, flags as booleans, times as given', () => {
    const row: TaskRow = {
      id: '9007199254740',
      token: T,
      queue: 'q',
      kind: 'handler',
      command: 'demo.echo',
      payload: '{"a":1}',
      status: 'dead',
      priority: 5,
      run_after: at,
      attempts: 2,
      max_attempts: 3,
      timeout_ms: null,
      dedup_key: null,
      concurrency_key: 'Acme',
      caller: null,
      batch_id: '12',
      stage: 1,
      lease_until: null,
      worker_id: 'w',
      cancel_requested: true,
      created_at: at,
      started_at: at,
      finished_at: null,
      error_number: 50000,
      error_message: 'boom',
      error_detail: null,
      result: null,
      schedule_name: 'nightly',
      schedule_fire_at: at,
    };
    const v = taskView(row);
    expect(v).toMatchObject({ id: 9007199254740, token: T.toLowerCase(), batchId: 12, cancelRequested: true, payload: { a: 1 } });
    expect(v).toMatchObject({ runAfter: at, startedAt: at, finishedAt: null, leaseUntil: null, schedule: { name: 'nightly', fireAt: at } });
    expect(v.lastError).toEqual({ number: 50000, message: 'boom', detail: null });
    expect(v.concurrencyKey).toBe('Acme');
    expect(taskView({ ...row, batch_id: null, cancel_requested: false, schedule_name: null }).batchId).toBeNull();
  });

  it('maps records: bigints, tokens and flags converted, times kept', () => {
    expect(
      metricPoint({ sec: '1700000000', enqueued: 1, started: 2, succeeded: 3, failed: 0, latency_sum: '42', latency_max: 9, depth: null }),
    ).toEqual({
      at: new Date(1_700_000_000_000),
      enqueued: 1,
      started: 2,
      succeeded: 3,
      failed: 0,
      latencySumMs: 42,
      latencyMaxMs: 9,
      depth: null,
    });
    expect(scheduleFire({ token: T, schedule_fire_at: null, created_at: at, status: 'pending' })).toEqual({
      token: T.toLowerCase(),
      fireAt: null,
      createdAt: at,
      status: 'pending',
    });
    const rule = { id: 3, name: 'r', kind: 'dead_task', params: 'not json', url: 'https://x', secret: null, format: 'json', dedup_ms: 0 };
    const times = { created_by: 'a', created_at: at, updated_by: 'b', updated_at: at };
    expect(alertRule({ ...rule, ...times, enabled: true, cursor_at: at, cursor_id: '77' })).toMatchObject({
      enabled: true,
      params: {},
      cursorAt: at,
      cursorId: 77,
    });
    const audit = { at, actor: 'op', source: 'api', action: 'task.cancel', target: 't', before_json: null, after_json: '{"x":1}', n: 1 };
    expect(auditRecord({ id: '5', ...audit })).toMatchObject({ id: 5, at, after: { x: 1 }, before: null, count: 1 });
    const change = { id: '8', queue: 'q', at, changed_by: 'cli', field: 'paused', old_value: 'false', new_value: 'true' };
    expect(queueChange(change)).toEqual({ id: 8, queue: 'q', at, changedBy: 'cli', field: 'paused', oldValue: 'false', newValue: 'true' });
  });
});
