// The front door's checks of an alert rule: 400 naming the field, the kind's own parameters kept (and
// required ones enforced), defaults, and the secret never shown in full.
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../engine/errors';
import { alertIdParam, maskSecret, validateAlertRule } from './alerts';

const field = (fn: () => unknown): string | null => {
  try {
    fn();
    return null;
  } catch (err) {
    if (err instanceof ValidationError) return err.field;
    throw err;
  }
};

describe('validateAlertRule', () => {
  it('keeps only the parameters of the kind, with the defaults', () => {
    const r = validateAlertRule({ name: 'slow', kind: 'ready_age', thresholdMs: 60_000, queue: 'etl', command: 'x', url: 'https://h/x' });
    expect(r).toEqual({
      name: 'slow',
      kind: 'ready_age',
      params: { queue: 'etl', thresholdMs: 60_000 },
      url: 'https://h/x',
      secret: null,
      format: 'json',
      dedupMs: 600_000,
      enabled: true,
    });
  });

  it('names the field at fault', () => {
    const ok = { name: 'n', kind: 'task_dead', url: 'http://127.0.0.1:9/x' };
    expect(field(() => validateAlertRule(ok))).toBeNull();
    expect(field(() => validateAlertRule({ ...ok, url: 'ftp://h/x' }))).toBe('url');
    expect(field(() => validateAlertRule({ ...ok, url: 'javascript:alert(1)' }))).toBe('url');
    expect(field(() => validateAlertRule({ ...ok, name: 'has space' }))).toBe('name');
    expect(field(() => validateAlertRule({ ...ok, kind: 'nope' }))).toBe('kind');
    expect(field(() => validateAlertRule({ ...ok, format: 'xml' }))).toBe('format');
    expect(field(() => validateAlertRule({ ...ok, dedupMs: -5 }))).toBe('dedupMs');
    expect(field(() => validateAlertRule({ ...ok, secret: '' }))).toBe('secret');
    expect(field(() => validateAlertRule({ ...ok, surprise: 1 }))).not.toBeNull();
    expect(field(() => validateAlertRule({ ...ok, kind: 'ready_age' }))).toBe('thresholdMs');
    expect(field(() => validateAlertRule({ ...ok, kind: 'failure_streak', count: 3 }))).toBe('command');
    expect(field(() => validateAlertRule({ ...ok, kind: 'failure_streak', command: 'c' }))).toBe('count');
    expect(field(() => validateAlertRule({ ...ok, kind: 'failure_streak', command: 'c', count: 1000 }))).toBe('count');
    expect(field(() => alertIdParam('abc'))).toBe('id');
    expect(alertIdParam('12')).toBe(12);
  });

  it('shows a secret as ••••last4', () => {
    expect(maskSecret('correct horse battery staple')).toBe('••••aple');
    expect(maskSecret(null)).toBeNull();
  });
});
