// The enqueue form's side note: what the built-in demo handlers do and take.
import { Card } from '../ui/Card';

export function DemoHelp() {
  return (
    <Card className="p-4">
      <h2 className="mb-2 text-sm font-semibold text-slate-900">Built-in demo handlers</h2>
      <ul className="space-y-1.5 text-xs">
        <li>
          <code className="font-mono text-slate-800">demo.sleep {'{ms}'}</code> — waits, then succeeds
        </li>
        <li>
          <code className="font-mono text-slate-800">demo.fail {'{message, number?}'}</code> — always fails
        </li>
        <li>
          <code className="font-mono text-slate-800">demo.flaky {'{failTimes}'}</code> — fails its first N attempts
        </li>
        <li>
          <code className="font-mono text-slate-800">demo.echo {'{…}'}</code> — its result is its payload
        </li>
      </ul>
    </Card>
  );
}
