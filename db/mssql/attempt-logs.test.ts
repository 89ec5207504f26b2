// The capture of a sql / procedure task's server messages, with a fake request: mssql's `info` events
// (tedious infoMessage: message, number, state, class, lineNumber, procName) become `print` lines, its
// `error` events (RequestError: number, class, state, lineNumber, procName) `error` lines, in the order
// they arrive, into the attempt's bounded buffer.
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { AttemptOutputBuffer, MAX_ATTEMPT_LINES } from '../../lib/engine/attempt-output';
import { captureMessages, errorLine, printLine, recordFailure } from './attempt-logs';

const info = (message: string, over: Record<string, unknown> = {}) => ({
  message,
  number: 0,
  state: 1,
  class: 0,
  lineNumber: 2,
  serverName: 'sql1',
  procName: '',
  ...over,
});

/** What node-mssql emits for an errorMessage in stream mode: a RequestError carrying the server's fields. */
function requestError(message: string, number: number, cls: number, line: number, procName = '') {
  return Object.assign(new Error(message), {
    name: 'RequestError',
    code: 'EREQUEST',
    number,
    class: cls,
    state: 1,
    lineNumber: line,
    procName,
  });
}

describe('server messages of a running task', () => {
  it('maps PRINT and RAISERROR ≤ 10 to print lines and errors to error lines, as they arrive', () => {
    const req = new EventEmitter();
    const buf = new AttemptOutputBuffer(7, 1, 'w1');
    const detach = captureMessages(req, (stream, line) => buf.log(stream, line));
    req.emit('info', info('starting the load'));
    req.emit('info', info('50% done', { number: 50000, class: 10, state: 1 }));
    req.emit('error', requestError("Invalid object name 'dbo.Nope'.", 208, 16, 3));
    req.emit('error', requestError('custom failure', 50000, 16, 9, 'dbo.Load'));
    // an info event of severity ≥ 11 never comes from the driver, but would be an error
    req.emit('info', info('odd', { number: 1, class: 14 }));
    const b = buf.take();
    expect(b.lines.map((l) => [l.stream, l.line])).toEqual([
      ['print', 'starting the load'],
      ['print', '50% done'],
      ['error', "Msg 208, Level 16, State 1, Line 3: Invalid object name 'dbo.Nope'."],
      ['error', 'Msg 50000, Level 16, State 1, Procedure dbo.Load, Line 9: custom failure'],
      ['error', 'Msg 1, Level 14, State 1, Line 2: odd'],
    ]);
    expect(b.dropped).toBe(0);

    // detached: later messages (another request on the same connection) are not this attempt's
    detach();
    req.emit('info', info('not mine'));
    expect(req.listenerCount('info')).toBe(0);
    expect(req.listenerCount('error')).toBe(0);
    expect(buf.take().lines).toEqual([]);
  });

  it('attaches nothing when the attempt records no output', () => {
    const req = new EventEmitter();
    captureMessages(req, undefined)();
    expect(req.listenerCount('info')).toBe(0);
  });

  it('a chatty script is bounded by the buffer: the last lines kept, the rest counted', () => {
    const req = new EventEmitter();
    const buf = new AttemptOutputBuffer(7, 1, 'w1');
    captureMessages(req, (stream, line) => buf.log(stream, line));
    for (let i = 1; i <= 1500; i++) req.emit('info', info(`row ${i}`));
    const b = buf.take();
    expect(b.lines).toHaveLength(MAX_ATTEMPT_LINES);
    expect(b.lines[0]!.line).toBe('row 501');
    expect(b.dropped).toBe(500);
  });

  it('a failed procedure records its errors in the order the server sent them', () => {
    const lines: [string, string][] = [];
    const last = Object.assign(requestError('second', 50001, 16, 5), {
      precedingErrors: [requestError('first', 50000, 11, 4)],
    });
    recordFailure(last, (s, l) => lines.push([s, l]));
    expect(lines).toEqual([
      ['error', 'Msg 50000, Level 11, State 1, Line 4: first'],
      ['error', 'Msg 50001, Level 16, State 1, Line 5: second'],
    ]);
  });

  it('formats lines as SSMS shows them', () => {
    expect(printLine(info('hello'))).toBe('hello');
    expect(errorLine(new Error('connection lost'))).toBe('connection lost');
  });
});
