// Usage text of `flow` and `tasks` (cli/help.ts shows them), apart so help.ts stays one page of commands.
import { MAX_FLOW_NODES, MAX_PARENTS } from '../lib/engine/limits';

/** nodes listed per state by `flow show` (the rest are counted; --json has them all) */
export const NODES_SHOWN = 20;

export const FLOW_HELP = `Usage: readpast flow create FILE.json|- [--json]
       readpast flow show ID [--json]
       readpast flow list [--unfinished] [--limit N] [--cursor ID] [--json]
       readpast flow cancel ID
       readpast flow retry ID

A flow is a graph of tasks created at once: each node runs only after every node it depends on
has succeeded. Until then it is waiting (never claimed); it becomes pending in the same
transaction as its last parent's success.

create   Reads the flow from FILE (- for stdin) and creates every node in one transaction
         (up to ${MAX_FLOW_NODES} nodes, ${MAX_PARENTS} parents each):
           {"name": "nightly",
            "onParentFailure": "cancel",
            "nodes": [{"id": "load-a", "command": "etl.load", "payload": {"src": "a"}},
                      {"id": "load-b", "command": "etl.load", "payload": {"src": "b"}},
                      {"id": "merge", "command": "etl.merge", "dependsOn": ["load-a", "load-b"]},
                      {"id": "notify", "command": "etl.notify",
                       "dependsOn": [{"id": "merge", "onParentFailure": "run"}]}]}
         A node takes what enqueue takes (kind, command, payload, queue, priority, maxAttempts,
         runAt, timeoutMs, concurrencyKey) but no dedupKey or batchId. onParentFailure (per flow,
         node or dependency; default cancel) says what a parent's death or cancel does to the
         waiting node: cancel (it is cancelled, with 'parent <token> dead', and its own waiting
         children after it), run (it runs anyway) or wait (it keeps waiting for an operator).
         A cycle, an unknown id or a self-edge is refused naming them (exit 2).
         Prints the flow id, then each node id with its token (--json: {flowId, tokens}).
show     The flow: name, times, counts by state, the number of edges, and its nodes by state (the
         first ${NODES_SHOWN} of each; --json: {id, name, caller, createdAt, finishedAt, nodes, counts,
         nodeList: [{nodeId, token, status, queue, kind, command, attempts, startedAt,
         finishedAt, error}], edges: [{parent, child, onParentFailure}]}).
list     Flows newest first with their counts by state; --unfinished: only those with a node not
         finished. --limit N (1 to 200, default 50), --cursor ID (the next page, as printed).
cancel   Cancels every waiting and pending node and asks the running ones to stop.
retry    Retries the dead nodes and those cancelled by an operator; the nodes their failure
         cancelled wait for them again.

Exit 3 when there is no flow ID.`;

export const TASKS_HELP = `Usage: readpast tasks [--status S] [--queue Q] [--command C] [--key K] [--batch ID] [--flow ID]
                     [--q TEXT] [--limit N] [--cursor ID] [--json]

Tasks newest first, filtered as in the dashboard's Tasks browser:
  --status S     waiting, pending, claimed, running, succeeded, dead or cancelled (waiting: for parents
                 to succeed, see 'readpast help flow'; claimed: claimed ahead by a pool, not started)
  --queue Q, --command C (exact), --key K (concurrency key), --batch ID, --flow ID (a flow's nodes
                 and the tasks added after them with --after)
  --q TEXT       a token, or text in the command, dedup key or last error
  --limit N      1 to 500 (default 50); --cursor ID continues where the last page ended
--json: {items: [{token, status, queue, command, attempts, flowId, flowNode, parentCount,
parentsLeft, …}], nextCursor}.`;
