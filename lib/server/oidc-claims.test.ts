import { describe, expect, it } from 'vitest';
import { actorName } from './identity';
import { clientName, personName, roleOf, roleValues, shownValues } from './oidc-claims';

const cfg = { rolesClaim: 'groups', operators: ['ops'], viewers: ['look'] };

describe('roles from the provider', () => {
  it('reads the roles claim as an array, a string or a dotted path', () => {
    expect(roleValues({ groups: ['a', 'ops', 3] }, cfg)).toEqual(['a', 'ops']);
    expect(roleValues({ groups: 'ops look' }, cfg)).toEqual(['ops', 'look']);
    expect(roleValues({}, cfg)).toEqual([]);
    expect(roleValues({ realm_access: { roles: ['ops'] } }, { rolesClaim: 'realm_access.roles' })).toEqual(['ops']);
    expect(roleValues({ 'https://example.com/roles': ['ops'] }, { rolesClaim: 'https://example.com/roles' })).toEqual(['ops']);
    expect(roleValues({ email: 'alice@example.com' }, { rolesClaim: 'email' })).toEqual(['alice@example.com']);
  });

  it('operator beats viewer; neither is null', () => {
    expect(roleOf(['look', 'ops'], cfg)).toBe('operator');
    expect(roleOf(['look'], cfg)).toBe('viewer');
    expect(roleOf(['sales'], cfg)).toBeNull();
    expect(roleOf([], cfg)).toBeNull();
    // values are compared exactly
    expect(roleOf(['OPS', 'ops '], cfg)).toBeNull();
  });

  it('names a person by email, else user name, else name, else subject; a machine by its client id', () => {
    expect(personName({ sub: 's', email: 'a@x', preferred_username: 'a', name: 'A' })).toBe('a@x');
    expect(personName({ sub: 's', preferred_username: 'a', name: 'A' })).toBe('a');
    expect(personName({ sub: 's', name: 'A' })).toBe('A');
    expect(personName({ sub: 's', email: ' ' })).toBe('s');
    expect(clientName({ sub: 's', client_id: 'ci' })).toBe('client ci');
    expect(clientName({ sub: 's', azp: 'app' })).toBe('client app');
    expect(clientName({ sub: 's' })).toBe('s');
  });

  it('records the subject with the name, within the audit column', () => {
    expect(actorName({ user: 'op' })).toBe('op');
    expect(actorName({ user: 'alice@example.com', subject: 'AbC-123' })).toBe('alice@example.com (sub AbC-123)');
    const long = actorName({ user: 'x'.repeat(300), subject: 'y'.repeat(300) });
    expect(long.length).toBeLessThanOrEqual(200);
    expect(long).toContain(`(sub ${'y'.repeat(100)})`);
  });

  it('keeps a bounded list of a refused person’s values', () => {
    const many = Array.from({ length: 50 }, (_, i) => `g${i}`);
    expect(shownValues(many)).toHaveLength(20);
    expect(shownValues(['z'.repeat(200)])[0]).toHaveLength(80);
  });
});
