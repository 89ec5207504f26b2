// A stand-in TDS endpoint for tests: just enough of the protocol (pre-login without encryption,
// LOGIN7, SQL batches and RPCs answered with result sets or an error) for the real mssql / tedious /
// tarn stack to connect to it, so that tests can count what the store really sends — connections
// (logins) and requests (round trips) — and stop and start "the server" under running workers.
// It runs no SQL: a test's `reply` decides what each request returns from its text. Never used by
// the store itself.
import { createServer, type Server, type Socket } from 'node:net';
import { decodeRpc, type RpcCall } from './rpc';

/** nvarchar(max): a value of any length (sent as PLP), for a reply of more than 4,000 characters */
export type FakeType = 'int' | 'bigint' | 'bit' | 'datetime' | 'nvarchar' | 'nvarcharmax';

export interface FakeResultSet {
  columns: readonly (readonly [name: string, type: FakeType])[];
  rows: readonly (readonly unknown[])[];
}

export interface FakeReply {
  sets?: readonly FakeResultSet[];
  /** a server error (e.g. 208 "Invalid object name"), after the result sets given with it (a batch that fails midway) */
  error?: { number: number; message: string };
  /** answer after this long (a slow or blocked statement) */
  delayMs?: number;
  /** an RPC's OUTPUT parameters (name without @ → nvarchar value, at most 4,000 characters) */
  outputs?: Record<string, string | null>;
}

export interface FakeRequest {
  /** `tm`: a transaction manager request (the driver's begin, commit or rollback), recorded with `recordTransactions` */
  kind: 'batch' | 'rpc' | 'tm';
  /** the statement text (an RPC's payload decoded loosely: match with `includes`; a `tm`: BEGIN, COMMIT or ROLLBACK) */
  text: string;
  at: number;
  /** bytes the client sent for it (TDS packets, headers included) */
  bytes: number;
  /** an RPC's procedure, statement and parameters, decoded (rpc.ts) */
  call?: RpcCall;
}

/** How a LOGIN7 signed in: a SQL login's name, an Entra ID token (FEDAUTH feature), or an SSPI (NTLM) blob. */
export interface FakeLogin {
  userName: string;
  /**
   * FEDAUTH: 'securitytoken' carries the token in LOGIN7 itself; 'adal' asks the server for its STS first
   * (workflow 1: user and password, 2: integrated — a credential of @azure/identity)
   */
  fedAuth: { library: 'securitytoken' | 'adal'; token: string | null; workflow?: number } | null;
  /** the SSPI blob (NTLM's NEGOTIATE message), if any */
  sspi: Buffer | null;
}

export interface FakeConnection {
  id: number;
  spid: number;
  /** the application name the client logged in with (readpast sets one per pool) */
  appName: string;
  login: FakeLogin;
  loginAt: Date;
  /** requests after the login (the driver's own SET options batch at login is not counted) */
  requests: FakeRequest[];
}

export type FakeReplier = (req: FakeRequest, conn: FakeConnection) => FakeReply | undefined;

const PACKET = { BATCH: 0x01, RPC: 0x03, TABULAR: 0x04, ATTENTION: 0x06, TM: 0x0e, LOGIN7: 0x10, PRELOGIN: 0x12 } as const;

/** A transaction manager request's type (MS-TDS 2.2.6.9: after ALL_HEADERS) as the statement it stands for. */
function tmText(payload: Buffer): string {
  const type = payload.readUInt16LE(payload.readUInt32LE(0));
  return ({ 5: 'BEGIN', 7: 'COMMIT', 8: 'ROLLBACK' } as Record<number, string>)[type] ?? `TM ${type}`;
}
const MAX_PACKET = 4096;

// ---- encoding --------------------------------------------------------------------------------

const u8 = (n: number) => Buffer.from([n & 0xff]);
function u16(n: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16LE(n);
  return b;
}
function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n >>> 0);
  return b;
}
function i32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32LE(n);
  return b;
}
const ucs2 = (s: string) => Buffer.from(s, 'utf16le');
const bVarchar = (s: string) => Buffer.concat([u8(s.length), ucs2(s)]);
const usVarchar = (s: string) => Buffer.concat([u16(s.length), ucs2(s)]);
/** SQL_Latin1_General_CP1_CI_AS */
const COLLATION = Buffer.from([0x09, 0x04, 0xd0, 0x00, 0x34]);

function done(token: number, status: number, rowCount = 0): Buffer {
  const rc = Buffer.alloc(8);
  rc.writeBigUInt64LE(BigInt(rowCount));
  return Buffer.concat([u8(token), u16(status), u16(0xc1), rc]);
}
const DONE = 0xfd;
const DONE_PROC = 0xfe;
const DONE_IN_PROC = 0xff;
const MORE = 0x01;
const ERROR = 0x02;
const COUNT = 0x10;

function typeInfo(t: FakeType): Buffer {
  switch (t) {
    case 'int':
      return Buffer.from([0x26, 4]);
    case 'bigint':
      return Buffer.from([0x26, 8]);
    case 'bit':
      return Buffer.from([0x68, 1]);
    case 'datetime':
      return Buffer.from([0x6f, 8]);
    case 'nvarchar':
      return Buffer.concat([u8(0xe7), u16(8000), COLLATION]);
    case 'nvarcharmax':
      return Buffer.concat([u8(0xe7), u16(0xffff), COLLATION]);
  }
}

function value(t: FakeType, v: unknown): Buffer {
  if (t === 'nvarcharmax') {
    if (v === null || v === undefined) return Buffer.alloc(8, 0xff);
    const s = ucs2(String(v));
    const total = Buffer.alloc(8);
    total.writeBigUInt64LE(BigInt(s.length));
    return Buffer.concat([total, u32(s.length), s, u32(0)]);
  }
  if (v === null || v === undefined) return t === 'nvarchar' ? u16(0xffff) : u8(0);
  switch (t) {
    case 'int':
      return Buffer.concat([u8(4), i32(Number(v))]);
    case 'bigint': {
      const b = Buffer.alloc(8);
      b.writeBigInt64LE(BigInt(v as number));
      return Buffer.concat([u8(8), b]);
    }
    case 'bit':
      return Buffer.from([1, v ? 1 : 0]);
    case 'datetime': {
      // days since 1900-01-01 and 1/300 s since midnight, as UTC (the driver's useUTC)
      const ms = (v as Date).getTime() - Date.UTC(1900, 0, 1);
      const days = Math.floor(ms / 86_400_000);
      const ticks = Math.round(((ms - days * 86_400_000) * 3) / 10);
      return Buffer.concat([u8(8), i32(days), u32(ticks)]);
    }
    case 'nvarchar': {
      const s = ucs2(String(v));
      return Buffer.concat([u16(s.length), s]);
    }
  }
}

function resultSet(set: FakeResultSet): Buffer {
  const meta = [u8(0x81), u16(set.columns.length)];
  for (const [name, t] of set.columns) meta.push(u32(0), u16(0x0001), typeInfo(t), bVarchar(name));
  const rows = set.rows.map((r) => Buffer.concat([u8(0xd1), ...set.columns.map(([, t], i) => value(t, r[i]))]));
  return Buffer.concat([...meta, ...rows]);
}

function errorToken(number: number, message: string): Buffer {
  const body = Buffer.concat([i32(number), u8(1), u8(16), usVarchar(message), bVarchar('fake'), bVarchar(''), i32(1)]);
  return Buffer.concat([u8(0xaa), u16(body.length), body]);
}

function tokensFor(reply: FakeReply, kind: 'batch' | 'rpc'): Buffer {
  const parts: Buffer[] = [];
  const endOfSet = kind === 'rpc' ? DONE_IN_PROC : DONE;
  for (const s of reply.sets ?? []) parts.push(resultSet(s), done(endOfSet, MORE | COUNT, s.rows.length));
  if (reply.error) parts.push(errorToken(reply.error.number, reply.error.message), done(endOfSet, ERROR));
  if (kind === 'rpc') {
    parts.push(u8(0x79), i32(0));
    // RETURNVALUE: ordinal, name, status (1: an output parameter), user type, flags, type info, value
    Object.entries(reply.outputs ?? {}).forEach(([name, v], i) =>
      parts.push(u8(0xac), u16(i), bVarchar(`@${name}`), u8(0x01), u32(0), u16(0x0001), typeInfo('nvarchar'), value('nvarchar', v)),
    );
    parts.push(done(DONE_PROC, reply.error ? ERROR : 0));
  } else parts.push(done(DONE, reply.error ? ERROR : 0));
  return Buffer.concat(parts);
}

function packets(type: number, payload: Buffer): Buffer {
  const out: Buffer[] = [];
  const room = MAX_PACKET - 8;
  let id = 1;
  for (let off = 0; off === 0 || off < payload.length; off += room) {
    const chunk = payload.subarray(off, off + room);
    const last = off + room >= payload.length;
    const head = Buffer.alloc(8);
    head.writeUInt8(type, 0);
    head.writeUInt8(last ? 0x01 : 0x00, 1);
    head.writeUInt16BE(chunk.length + 8, 2);
    head.writeUInt16BE(0, 4);
    head.writeUInt8(id++ & 0xff, 6);
    out.push(head, chunk);
    if (payload.length === 0) break;
  }
  return Buffer.concat(out);
}

function preloginReply(): Buffer {
  // VERSION (6 bytes) and ENCRYPTION = NOT_SUP (the client sends everything in clear), then the terminator
  const headerLen = 5 + 5 + 1;
  return Buffer.concat([
    Buffer.from([0x00]),
    Buffer.from([0, headerLen, 0, 6]),
    Buffer.from([0x01]),
    Buffer.from([0, headerLen + 6, 0, 1]),
    Buffer.from([0xff]),
    Buffer.from([16, 0, 0, 0, 0, 0]),
    Buffer.from([0x02]),
  ]);
}

function loginReply(login: FakeLogin): Buffer {
  const ack = Buffer.concat([u8(1), Buffer.from([0x74, 0x00, 0x00, 0x04]), bVarchar('fake TDS'), Buffer.from([16, 0, 0, 0])]);
  const collation = Buffer.concat([u8(7), u8(5), COLLATION, u8(0)]);
  // a token login is acknowledged (FEATUREEXTACK, FEDAUTH with no data), as SQL Server does
  const fedAuthAck = login.fedAuth ? Buffer.from([0xae, 0x02, 0, 0, 0, 0, 0xff]) : Buffer.alloc(0);
  return Buffer.concat([u8(0xe3), u16(collation.length), collation, u8(0xad), u16(ack.length), ack, fedAuthAck, done(DONE, 0)]);
}

/** LOGIN7's user name, FEDAUTH feature and SSPI blob (MS-TDS 2.2.6.4: offsets at 40, 56, 78; FeatureExt at its own offset). */
export function loginOf(login: Buffer): FakeLogin {
  const out: FakeLogin = { userName: '', fedAuth: null, sspi: null };
  if (login.length < 94) return out;
  const str = (at: number) => login.subarray(login.readUInt16LE(at), login.readUInt16LE(at) + login.readUInt16LE(at + 2) * 2);
  out.userName = str(40).toString('utf16le');
  const sspiLen = login.readUInt16LE(80);
  if (sspiLen > 0) out.sspi = Buffer.from(login.subarray(login.readUInt16LE(78), login.readUInt16LE(78) + sspiLen));
  const fExtension = (login.readUInt8(27) & 0x10) !== 0;
  if (fExtension && login.readUInt16LE(58) === 4) {
    let at = login.readUInt32LE(login.readUInt16LE(56));
    while (at < login.length && login[at] !== 0xff) {
      const id = login.readUInt8(at);
      const len = login.readUInt32LE(at + 1);
      const data = login.subarray(at + 5, at + 5 + len);
      if (id === 0x02 && data.length >= 1) {
        const library = data[0]! >> 1;
        out.fedAuth =
          library === 0x01 && data.length >= 5
            ? { library: 'securitytoken', token: data.subarray(5, 5 + data.readUInt32LE(1)).toString('utf16le') }
            : { library: 'adal', token: null, workflow: data[1] ?? 0 };
      }
      at += 5 + len;
    }
  }
  return out;
}

/** LOGIN7: the application name (offset/length pair at byte 48). */
function appNameOf(login: Buffer): string {
  if (login.length < 52) return '';
  const off = login.readUInt16LE(48);
  const len = login.readUInt16LE(50);
  return login.subarray(off, off + len * 2).toString('utf16le');
}

/** A request's text: a batch's after ALL_HEADERS; an RPC's payload read at both byte alignments. */
function textOf(kind: 'batch' | 'rpc', payload: Buffer): string {
  const headers = payload.length >= 4 ? payload.readUInt32LE(0) : 0;
  const body = payload.subarray(Math.min(headers, payload.length));
  if (kind === 'batch') return body.toString('utf16le');
  return `${body.toString('utf16le')}\n${body.subarray(1).toString('utf16le')}`;
}

// ---- the server ------------------------------------------------------------------------------

export class FakeTds {
  readonly connections: FakeConnection[] = [];
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  private nextSpid = 51;
  port = 0;
  /** added before every answer (pre-login, login, each request): a remote server's round trip */
  latencyMs = 0;
  /**
   * Accept connections but never answer them (a server starting up behind its listener, or a
   * network that drops the packets): a connection accepted meanwhile stays unanswered for good.
   */
  stalled = false;
  /** record the driver's transaction manager requests (begin, commit, rollback) among a connection's requests */
  recordTransactions = false;

  constructor(public reply: FakeReplier = () => undefined) {}

  /** Listen (on the same port as before after a stop). */
  async start(): Promise<void> {
    const server = createServer((socket) => this.accept(socket));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as { port: number }).port;
    this.server = server;
  }

  /**
   * Stop listening and drop every connection (a server going down); `reset`: with a TCP reset (RST), as a
   * server's host does to connections it no longer knows, rather than a FIN.
   */
  async stop(opts: { reset?: boolean } = {}): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const s of this.sockets) {
      if (opts.reset && !s.destroyed) s.resetAndDestroy();
      else s.destroy();
    }
    this.sockets.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  url(database = 'fake'): string {
    return `mssql://readpast:secret@127.0.0.1:${this.port}/${database}?encrypt=false&trustServerCertificate=true`;
  }

  /** Requests of every connection whose application name matches. */
  requests(app?: string | RegExp): FakeRequest[] {
    return this.connections.filter((c) => matches(c.appName, app)).flatMap((c) => c.requests);
  }

  logins(app?: string | RegExp): FakeConnection[] {
    return this.connections.filter((c) => matches(c.appName, app));
  }

  /**
   * Every connection open now goes silent for good, without a FIN or a reset: what reaches it is dropped
   * and nothing is answered (a half-open connection: the server's host vanished, a failover moved the
   * listener, a network cut). New connections are served as usual. Returns how many were frozen.
   */
  freeze(): number {
    for (const s of this.sockets) this.frozen.add(s);
    return this.sockets.size;
  }

  private readonly frozen = new WeakSet<Socket>();

  private accept(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => {});
    if (this.stalled) return;
    let conn: FakeConnection | null = null;
    let initialSqlSeen = false;
    let buffered = Buffer.alloc(0);
    let message: Buffer[] = [];
    let messageBytes = 0;
    let queue: Promise<unknown> = Promise.resolve();
    socket.on('data', (data: Buffer) => {
      if (this.frozen.has(socket)) return;
      buffered = Buffer.concat([buffered, data]);
      while (buffered.length >= 8) {
        const len = buffered.readUInt16BE(2);
        if (buffered.length < len) break;
        const type = buffered.readUInt8(0);
        const last = (buffered.readUInt8(1) & 0x01) === 0x01;
        message.push(buffered.subarray(8, len));
        messageBytes += len;
        buffered = buffered.subarray(len);
        if (!last) continue;
        const payload = Buffer.concat(message);
        const bytes = messageBytes;
        message = [];
        messageBytes = 0;
        // answer in order, each after its own delay
        queue = queue
          .then(() => this.handle(socket, type, payload, bytes, conn, initialSqlSeen))
          .then(
            (next) => {
              if (next.conn) conn = next.conn;
              if (next.initialSqlSeen) initialSqlSeen = true;
            },
            () => socket.destroy(),
          );
      }
    });
  }

  private async handle(
    socket: Socket,
    type: number,
    payload: Buffer,
    bytes: number,
    conn: FakeConnection | null,
    initialSqlSeen: boolean,
  ): Promise<{ conn?: FakeConnection; initialSqlSeen?: boolean }> {
    if (this.latencyMs) await new Promise((r) => setTimeout(r, this.latencyMs));
    const send = (b: Buffer) => {
      if (!socket.destroyed && !this.frozen.has(socket)) socket.write(packets(PACKET.TABULAR, b));
    };
    if (type === PACKET.PRELOGIN) {
      send(preloginReply());
      return {};
    }
    if (type === PACKET.LOGIN7) {
      const c: FakeConnection = {
        id: this.connections.length + 1,
        spid: this.nextSpid++,
        appName: appNameOf(payload),
        login: loginOf(payload),
        loginAt: new Date(),
        requests: [],
      };
      this.connections.push(c);
      send(loginReply(c.login));
      return { conn: c };
    }
    if (type === PACKET.ATTENTION) {
      send(done(DONE, 0x20));
      return {};
    }
    if (type === PACKET.TM && conn && this.recordTransactions) {
      conn.requests.push({ kind: 'tm', text: tmText(payload), at: Date.now(), bytes });
    }
    if ((type === PACKET.BATCH || type === PACKET.RPC) && conn) {
      const kind = type === PACKET.BATCH ? 'batch' : 'rpc';
      const req: FakeRequest = { kind, text: textOf(kind, payload), at: Date.now(), bytes };
      if (kind === 'rpc') req.call = decodeRpc(payload);
      if (!initialSqlSeen && kind === 'batch') {
        send(done(DONE, 0));
        return { initialSqlSeen: true };
      }
      conn.requests.push(req);
      const reply = this.reply(req, conn) ?? {};
      if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
      send(tokensFor(reply, kind));
      return {};
    }
    send(done(DONE, 0));
    return {};
  }
}

function matches(name: string, app: string | RegExp | undefined): boolean {
  if (app === undefined) return true;
  return typeof app === 'string' ? name === app : app.test(name);
}

/** The columns SESSION_TAG returns, for a reply. */
export function sessionRow(conn: FakeConnection, extra: Record<string, string> = {}): FakeResultSet {
  const cols: [string, FakeType][] = [
    ['session', 'int'],
    ['login_time', 'datetime'],
    ['db', 'nvarchar'],
  ];
  const row: unknown[] = [conn.spid, conn.loginAt, 'fake'];
  for (const [k, v] of Object.entries(extra)) {
    cols.push([k, 'nvarchar']);
    row.push(v);
  }
  return { columns: cols, rows: [row] };
}
