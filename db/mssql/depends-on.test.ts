// A `dependsOn` that is not a JSON array of dependencies is refused by name, never dropped: in the enqueue procedure
// (ENQUEUE_WRITE, sql/enqueue-deps.ts DECLARE_DEPS: error 51006 before anything is written), in the row the store
// builds, and through the store against the stand-in TDS endpoint (what the store sends, and the error it gives back).
import { afterEach, describe, expect, it } from 'vitest';
import { ValidationError } from '../../lib/engine/errors';
import type { EnqueueInput } from '../../lib/engine/types';
import { enqueueError, enqueueRow } from './enqueue';
import { DECLARE_DEPS } from './sql/enqueue-deps';
import { ENQUEUE_WRITE } from './sql/enqueue';
import { HOT, hotName } from './sql/hot';
import { sessionRow, type FakeReplier } from './test-support/fake-tds';
import { closeFakeStores, openFakeStore } from './test-support/fake-store';

afterEach(closeFakeStores);

describe('the enqueue procedure refuses a dependsOn that is not an array of objects', () => {
  it('checks every task’s dependsOn first: a string, number, boolean or object, or an element that is not an object', () => {
    // OPENJSON types: 0 null, 1 string, 2 number, 3 bool, 4 array, 5 object — only null (no dependencies) and an array pass
    expect(DECLARE_DEPS).toContain("WHERE p.[key] = N'dependsOn' AND (p.type NOT IN (0, 4) OR x.type IS NOT NULL)");
    // the array's elements: the first that is not an object
    expect(DECLARE_DEPS).toMatch(/OPENJSON\(CASE WHEN p\.type = 4 THEN p\.value END\) AS d\s+WHERE d\.type <> 5/);
    expect(DECLARE_DEPS).toContain('IF @dep_bad IS NOT NULL THROW 51006, @dep_bad, 1;');
    // named as the store maps it to a field: `task <ord>, dependsOn: …` or `task <ord>, dependsOn.<n>: …`
    expect(DECLARE_DEPS).toContain("CONCAT(N'task ', COALESCE(JSON_VALUE(e.value, '$.ord'), e.[key]), N', dependsOn',");
  });

  it('refuses before anything is written, and before the dependencies are read (where a string would give no row)', () => {
    const check = ENQUEUE_WRITE.indexOf('THROW 51006, @dep_bad, 1;');
    expect(check).toBeGreaterThan(0);
    expect(check).toBeLessThan(ENQUEUE_WRITE.indexOf("OPENJSON(@tasks) WITH (ord int '$.ord', deps nvarchar(max) '$.dependsOn' AS JSON)"));
    expect(check).toBeLessThan(ENQUEUE_WRITE.indexOf('BEGIN TRANSACTION;'));
    expect(ENQUEUE_WRITE.slice(0, check)).not.toMatch(/INSERT INTO readpast\.|UPDATE readpast\./);
  });
});

describe('the store', () => {
  it('refuses a dependsOn that is not an array when it builds the row, naming the field', () => {
    for (const bad of ['["0193"]', { token: 'a' }, 7]) {
      const input = { kind: 'handler', command: 'demo.echo', dependsOn: bad } as unknown as EnqueueInput;
      expect(() => enqueueRow(input, 0)).toThrow(ValidationError);
      expect(() => enqueueRow(input, 2, 'tasks.2')).toThrow(expect.objectContaining({ field: 'tasks.2.dependsOn' }));
    }
  });

  it('maps the procedure’s refusal to the field: the task’s dependsOn, or one dependency of it', () => {
    const whole = enqueueError({ number: 51006, message: 'task 1, dependsOn: must be a JSON array (got a string)' }, (i) => `tasks.${i}.`);
    expect(whole).toBeInstanceOf(ValidationError);
    expect(whole).toMatchObject({ field: 'tasks.1.dependsOn' });
    expect((whole as Error).message).toContain('must be a JSON array (got a string)');
    const one = enqueueError({ number: 51006, message: 'task 0, dependsOn.2: each dependency must be an object (got a string)' });
    expect(one).toMatchObject({ field: 'dependsOn.2' });
  });

  it('over the wire: sends dependsOn as an array (or null), and turns the refusal into an error naming dependsOn', async () => {
    let refuse = false;
    const reply: FakeReplier = (req, conn) => {
      if (req.text.includes('SET CONTEXT_INFO @tag')) return { sets: [sessionRow(conn)] };
      // by name, or (the first call of a store that does not migrate) as EXEC text after the schema guard
      if (req.call?.procedure === hotName(HOT.enqueue) || req.call?.statement?.includes(`EXEC ${hotName(HOT.enqueue)} `)) {
        if (refuse) return { error: { number: 51006, message: 'task 1, dependsOn: must be a JSON array (got a string)' } };
        return { outputs: { results: '[]' } };
      }
      return undefined;
    };
    const { tds, store } = await openFakeStore(reply, { wakeMs: 0 });
    const parent = '0193a000-0000-7000-8000-000000000001';
    await store.commands.enqueueMany([
      { kind: 'handler', command: 'demo.echo' },
      { kind: 'handler', command: 'demo.echo', dependsOn: [{ token: parent, onParentFailure: 'run' }] },
    ]);
    const sent = tds.requests().find((r) => r.call?.params.tasks !== undefined)!;
    const tasks = JSON.parse(sent.call!.params.tasks as string) as { dependsOn: unknown }[];
    expect(tasks.map((t) => t.dependsOn)).toEqual([null, [{ n: 0, token: parent, ord: null, onParentFailure: 'run' }]]);
    refuse = true;
    const err = await store.commands
      .enqueueMany([
        { kind: 'handler', command: 'demo.echo' },
        { kind: 'handler', command: 'demo.echo', dependsOn: [{ token: parent, onParentFailure: 'cancel' }] },
      ])
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect(err).toMatchObject({ field: 'tasks.1.dependsOn' });
  });
});
