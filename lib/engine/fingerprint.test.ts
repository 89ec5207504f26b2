import { describe, expect, it } from 'vitest';
import { fingerprint, FINGERPRINT_LENGTH, normaliseMessage } from './fingerprint';

describe('fingerprint', () => {
  it('is one fingerprint for 50 errors differing only by an id', () => {
    const prints = new Set<string>();
    for (let i = 0; i < 50; i++) {
      const id = crypto.randomUUID();
      prints.add(fingerprint(547, `insert failed for order ${1000 + i * 7919} (row ${id}, key '${id.slice(0, 8)}')`));
    }
    expect(prints.size).toBe(1);
    expect([...prints][0]).toMatch(new RegExp(`^[0-9a-f]{${FINGERPRINT_LENGTH}}$`));
  });

  it('differs by error number and by the words of the message', () => {
    const m = 'deadlock victim on table Orders';
    expect(fingerprint(1205, m)).not.toBe(fingerprint(547, m));
    expect(fingerprint(1205, m)).not.toBe(fingerprint(null, m));
    expect(fingerprint(1205, m)).not.toBe(fingerprint(1205, 'timeout on table Orders'));
  });

  it('is stable across calls', () => {
    expect(fingerprint(50000, 'x')).toBe(fingerprint(50000, 'x'));
  });

  it('normalises uuids, quoted values, hex, numbers and long digit runs', () => {
    expect(normaliseMessage(`task 3f2b8c1e-1d2a-4c3b-9a8b-0123456789ab failed`)).toBe('task <uuid> failed');
    expect(normaliseMessage(`Violation of key 'K_1'. Duplicate "abc \\" def"`)).toBe(`Violation of key '?'. Duplicate "?"`);
    expect(normaliseMessage('bad page 0x1F3A at offset -12.5 after 3 tries')).toBe('bad page 0x? at offset <n> after <n> tries');
    expect(normaliseMessage('customer cust123456 not found')).toBe('customer cust<n> not found');
    expect(normaliseMessage('  two\n lines  ')).toBe('two lines');
    expect(normaliseMessage(null)).toBe('');
  });
});
