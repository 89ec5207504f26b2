// `readpast doctor`'s listing of the code objects on SQL Server (doctor-code.ts, pure): each hot procedure with
// the running workers that call it — a worker that recorded no code calls the names of before migration 21 —
// and a failure, with `readpast migrate` as its remedy, when one of this readpast's objects is missing or differs.
import { describe, expect, it } from 'vitest';
import { CODE_OBJECTS } from './code-objects';
import { codeCheck, codeFactsFromRows } from './doctor-code';
import { HOT, hotBareName } from './sql/hot';

const at = new Date(Date.UTC(2026, 10, 20));
const rows = (over: Record<string, Record<string, unknown>> = {}) =>
  CODE_OBJECTS.map((o) => ({
    name: o.name,
    kind: o.kind,
    hash: o.hash,
    schema_version: 21,
    installed_at: at,
    present: 1,
    ...over[o.name],
  }));

describe('readpast doctor: installed procedures and views', () => {
  it('lists each hot procedure with the workers that call it, this readpast’s and an earlier one’s', () => {
    const facts = codeFactsFromRows(
      [...rows(), { name: 'Claim_v20', kind: 'hot', hash: 'AB', schema_version: 0, installed_at: at, present: 1 }],
      [
        { worker_id: 'w-new', code: JSON.stringify(CODE_OBJECTS.filter((o) => o.kind === 'hot').map((o) => o.name)) },
        { worker_id: 'w-old', code: null },
      ],
    );
    const c = codeCheck({ ok: true, value: facts }, null);
    expect(c).toMatchObject({ id: 'code', ok: true, needed: false, remedy: null });
    const claim = hotBareName(HOT.claim);
    expect(c.detail).toContain(`readpast.${claim} (this readpast's, since 2026-11-20): used by 1 running worker (w-new)`);
    expect(c.detail).toContain('readpast.Claim_v20 (from before migration 21, since 2026-11-20): used by 1 running worker (w-old)');
    expect(c.detail).toContain('procedures and views: SettleBatches, ExecAsync');
  });

  it('fails when one of this readpast’s objects is missing or its text differs, with migrate as the remedy', () => {
    const missing = codeCheck({ ok: true, value: codeFactsFromRows(rows({ ExecAsync: { present: 0 } }), []) }, null);
    expect(missing.ok).toBe(false);
    expect(missing.detail).toMatch(/^readpast\.ExecAsync not installed as this readpast installs it/);
    expect(missing.remedy).toMatch(/^run 'readpast migrate'/);
    const differs = codeCheck({ ok: true, value: codeFactsFromRows(rows({ CancelTask: { hash: '0'.repeat(64) } }), []) }, null);
    expect(differs.ok).toBe(false);
    expect(differs.detail).toMatch(/^readpast\.CancelTask not installed/);
    expect(codeCheck(undefined, 'not connected')).toMatchObject({ ok: null, detail: 'skipped: not connected' });
  });
});
