// Type test of the typed commands (lib/api/typed.ts), checked by `tsc --noEmit` in `npm test`: every
// `@ts-expect-error` line must fail to compile (tsc reports an unused one), every other line must compile.
// It is never run; the consumer test (bin/test/consumer.test.ts) checks the same against the packaged .d.ts.
import { defineHandlers, openReadpast, type FlowNode, type HandlerContext, type TaskToken } from './index';

export async function typedCommands(): Promise<void> {
  const rp = await openReadpast({
    url: 'sqlite::memory:',
    handlers: {
      'billing.invoice': async (p: { id: number }, ctx) => {
        ctx.log(`invoice ${p.id} on attempt ${ctx.attempt}`);
        return { invoiced: p.id, total: 12.5 };
      },
      'mail.send': (p: { to: string; cc?: string[] }) => ({ sent: p.to }),
      'cache.flush': () => 'flushed' as const,
    },
  });

  const { token } = await rp.enqueue({ command: 'billing.invoice', payload: { id: 42 }, queue: 'billing', maxAttempts: 3 });
  await rp.enqueue({ command: 'mail.send', payload: { to: 'a@example.com', cc: ['b@example.com'] } });
  await rp.enqueue({ command: 'cache.flush' });
  await rp.enqueue({ command: 'demo.sleep', payload: { ms: 10 } });
  await rp.enqueue({ kind: 'sql', command: 'SELECT 1' });

  // @ts-expect-error a payload of the wrong type
  await rp.enqueue({ command: 'billing.invoice', payload: { id: '42' } });
  // @ts-expect-error a payload missing a field
  await rp.enqueue({ command: 'billing.invoice', payload: {} });
  // @ts-expect-error no payload where the handler needs one
  await rp.enqueue({ command: 'mail.send' });
  // @ts-expect-error an unknown command
  await rp.enqueue({ command: 'billing.refund', payload: { id: 42 } });
  // @ts-expect-error an unknown option
  await rp.enqueue({ command: 'cache.flush', queu: 'x' });
  // @ts-expect-error a built-in's payload is typed too
  await rp.enqueue({ command: 'demo.sleep', payload: { ms: '10' } });

  // the token remembers its command: the result is the handler's
  const status = await rp.status(token);
  const invoiced: number | undefined = status.result?.invoiced;
  // @ts-expect-error the result has no such field
  status.result?.refunded;
  const t2: TaskToken<'billing.invoice'> = token;
  // @ts-expect-error a token of another command
  const t3: TaskToken<'mail.send'> = token;
  // a plain string token: the result is not known
  const plain = await rp.status('00000000-0000-4000-8000-000000000000');
  const r: unknown = plain.result;
  // @ts-expect-error unknown is not an object
  plain.result.invoiced;
  void [invoiced, t2, t3, r];

  // handlers declared apart keep their types, ctx included
  const handlers = defineHandlers({
    'report.build': async (p: { month: string }, ctx: HandlerContext) => ({ rows: p.month.length + ctx.attempt }),
  });
  const rp2 = await openReadpast({ handlers });
  await rp2.enqueue({ command: 'report.build', payload: { month: '2026-01' } });
  // @ts-expect-error wrong payload
  await rp2.enqueue({ command: 'report.build', payload: { month: 1 } });

  // a sql or procedure task by its kind; its token is a plain one
  const sql = await rp.enqueue({ kind: 'sql', command: 'SELECT 1', queue: 'reports' });
  const sqlToken: string = sql.token;
  await rp.enqueue({ kind: 'handler', command: 'billing.invoice', payload: { id: 1 } });
  void sqlToken;

  // flows: each node typed by its command, as enqueue; sql nodes as they are
  const flow = await rp.flow({
    name: 'month-end',
    nodes: [
      { id: 'invoice', command: 'billing.invoice', payload: { id: 7 } },
      { id: 'mail', command: 'mail.send', payload: { to: 'a@example.com' }, dependsOn: ['invoice'] },
      { id: 'report', kind: 'sql', command: 'SELECT 1', dependsOn: [{ id: 'mail', onParentFailure: 'run' }] },
    ],
  });
  const flowId: number = flow.flowId;
  void flowId;
  // @ts-expect-error a node's payload of the wrong type
  await rp.flow({ nodes: [{ id: 'a', command: 'billing.invoice', payload: { id: '7' } }] });
  // @ts-expect-error a node of an unknown command
  await rp.flow({ nodes: [{ id: 'a', command: 'billing.refund' }] });
  // @ts-expect-error a node takes no dedup key
  await rp.flow({ nodes: [{ id: 'a', command: 'cache.flush', dedupKey: 'k' }] });
  // nodes built in code: typed by the handlers (FlowNode), or their commands kept literal
  const built: FlowNode<typeof handlers>[] = [1, 2].map((n) => ({
    id: `r${n}`,
    command: 'report.build',
    payload: { month: `2026-0${n}` },
  }));
  await rp2.flow({ nodes: built });
  await rp.flow({ nodes: [1, 2].map((id) => ({ id: `i${id}`, command: 'billing.invoice' as const, payload: { id } })) });

  // in a transaction, as on rp
  await rp.withTransaction(async (tx) => {
    const { token: t } = await tx.enqueue({ command: 'billing.invoice', payload: { id: 1 } });
    const typed: TaskToken<'billing.invoice'> = t;
    // @ts-expect-error an unknown command
    await tx.enqueue({ command: 'billing.refund' });
    // @ts-expect-error a node's payload of the wrong type
    await tx.flow({ nodes: [{ id: 'a', command: 'billing.invoice', payload: { id: '7' } }] });
    void typed;
  });

  // without handlers: anything goes at compile time (validated at run time), as for HTTP bodies
  const untyped = await openReadpast();
  const body: unknown = JSON.parse('{}');
  await untyped.enqueue(body);
  await untyped.enqueue({ command: 'anything', payload: 1 });
  await untyped.flow(body);
  await untyped.withTransaction((tx) => tx.enqueue(body));
  const s = await untyped.status('00000000-0000-4000-8000-000000000000');
  const u: unknown = s.result;
  void u;

  // the store's read port is not the front door's: library users read through its methods
  // @ts-expect-error Readpast has no reads member
  void untyped.reads;
  await untyped.taskCounts('default');
}
