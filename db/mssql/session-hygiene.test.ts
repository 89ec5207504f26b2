// The decision after a task's own T-SQL: may this session serve the next task, or must the worker
// reconnect? (session.ts: sessionProblem; the statement that reports the state is SESSION_CLEANUP.)
import { describe, expect, it } from 'vitest';
import { sessionProblem, type CleanupRow, type SessionInfo } from './session';

const fresh: SessionInfo = { session: 61, loginTime: new Date(0), db: 'jobs', login: 'app', user: 'app_user' };
const clean: CleanupRow = { trancount: 0, db: 'jobs', original_login: 'app', login_name: 'app', user_name: 'app_user' };

describe('a session after a sql task', () => {
  it('is handed on when nothing the task did outlives it', () => {
    expect(sessionProblem(fresh, clean)).toBeNull();
  });

  it('is replaced when a transaction is still open or the database changed', () => {
    expect(sessionProblem(fresh, { ...clean, trancount: 1 })).toMatch(/1 transaction\(s\) still open/);
    expect(sessionProblem(fresh, { ...clean, db: 'master' })).toMatch(/database changed to master \(was jobs\)/);
  });

  it('is replaced when the task left EXECUTE AS LOGIN: the login is no longer the one that connected', () => {
    expect(sessionProblem(fresh, { ...clean, login_name: 'sa' })).toMatch(/running as login sa, not app \(EXECUTE AS LOGIN\)/);
  });

  it('is replaced when the database user changed: EXECUTE AS USER, SETUSER, an application role', () => {
    // sp_setapprole: USER_NAME() is the role's name, the login stays
    expect(sessionProblem(fresh, { ...clean, user_name: 'ReportingRole' })).toMatch(/database user ReportingRole, not app_user/);
    // EXECUTE AS USER of a user without a login: SUSER_SNAME() may be NULL
    expect(sessionProblem(fresh, { ...clean, login_name: null, user_name: 'loader' })).toMatch(/running as login \(none\)/);
  });

  it('compares with the fresh connection: names that differed from the start are not a change', () => {
    // a contained database user, say: ORIGINAL_LOGIN() and SUSER_SNAME() differ on a fresh connection
    const contained: SessionInfo = { ...fresh, login: 'S-1-9-3-1234' };
    expect(sessionProblem(contained, { ...clean, login_name: 'S-1-9-3-1234' })).toBeNull();
    expect(sessionProblem(contained, { ...clean, login_name: 'sa' })).toMatch(/running as login sa, not S-1-9-3-1234/);
    expect(sessionProblem(fresh, { ...clean, original_login: 'other', login_name: 'other' })).toMatch(/not app \(EXECUTE AS LOGIN\)$/);
  });

  it('is replaced when the clean-up returned nothing; without a fresh description only what needs none is checked', () => {
    expect(sessionProblem(fresh, undefined)).toMatch(/returned nothing/);
    expect(sessionProblem(null, { ...clean, db: 'other', user_name: 'x' })).toBeNull();
    expect(sessionProblem(null, { ...clean, login_name: 'sa' })).toMatch(/EXECUTE AS LOGIN/);
  });
});
