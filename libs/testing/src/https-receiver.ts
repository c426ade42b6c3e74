import type { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';

/**
 * A local HTTPS webhook receiver for tests and the dev stack (its certificates: testCertificates):
 * a server that records every request (raw body bytes, headers, the TLS connection and SNI name it
 * came on) and answers as the test says.
 */

export interface ReceivedRequest {
  method: string;
  /** The path as sent, without the query. */
  path: string;
  /** The request target as sent: path and query. */
  url: string;
  query: URLSearchParams;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  rawBody: Buffer;
  /** Real-clock ms when the whole body had arrived. */
  receivedAt: number;
  /** Which TLS connection carried it: 1, 2, ... in order of handshake since start (clear keeps counting). */
  connectionId: number;
  /** The SNI name the client sent on that connection, null when it sent none. */
  servername: string | null;
}

export interface ReceiverResponse {
  status: number;
  body?: string | Buffer;
  /** Wait this long before answering at all. */
  delayMs?: number;
  /** Send the status and headers at once, the body this much later (a response still streaming). */
  bodyDelayMs?: number;
  headers?: Record<string, string>;
}

/** Answers one request; undefined leaves it to the default answer (so a test can handle only its own path). */
export type ReceiverHandler = (req: ReceivedRequest) => ReceiverResponse | undefined | Promise<ReceiverResponse | undefined>;

/** The default answer: the subscription handshake echoes its challenge; anything else gets an empty 200. */
export const defaultReceiverHandler: ReceiverHandler = (req) => {
  if (req.method === 'GET' && req.query.get('svc.mode') === 'subscribe') return { status: 200, body: req.query.get('svc.challenge') ?? '' };
  return { status: 200 };
};

interface Connection {
  id: number;
  servername: string | null;
}

export class HttpsReceiver {
  readonly requests: ReceivedRequest[] = [];
  /** `secureConnection` events since start (or clear): fewer than requests means connections were reused. */
  tlsConnections = 0;
  private handler: ReceiverHandler = defaultReceiverHandler;
  private bodyCheck: ((req: ReceivedRequest) => string[]) | null = null;
  /** What `checkBodies` found wrong so far; waitFor fails while any is here. */
  readonly bodyProblems: string[] = [];
  private readonly openByPath = new Map<string, number>();
  private readonly peakByPath = new Map<string, number>();
  private readonly connections = new WeakMap<TLSSocket, Connection>();
  private readonly sockets = new Set<Socket>();
  private readonly waits = new Map<NodeJS.Timeout, () => void>();
  private closing = false;
  private closed: Promise<void> | undefined;
  private nextConnectionId = 0;

  private constructor(private readonly server: https.Server) {
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    server.on('secureConnection', (socket: TLSSocket) => {
      this.tlsConnections++;
      // Node sets `servername` on server-side sockets (false without SNI); @types/node does not declare it.
      const { servername } = socket as TLSSocket & { servername?: string | false };
      this.connections.set(socket, { id: ++this.nextConnectionId, servername: typeof servername === 'string' ? servername : null });
    });
    // A client that fails the handshake (an untrusted certificate) is a normal test case, not an error.
    server.on('tlsClientError', () => undefined);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => this.receive(req, res));
  }

  /** Listens on `host` (127.0.0.1 by default) and `port`; port 0 picks a free one (see `port`). */
  static async start(options: { port: number; host?: string; certPem: string; keyPem: string }): Promise<HttpsReceiver> {
    const server = https.createServer({ cert: options.certPem, key: options.keyPem });
    const receiver = new HttpsReceiver(server);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, options.host ?? '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    return receiver;
  }

  /** The port listened on (the one picked when started with port 0). */
  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** How to answer from now on (replaces the previous handler). */
  respond(handler: ReceiverHandler): void {
    this.handler = handler;
  }

  /** Checks every request from now on; a problem makes waitFor fail (the handler still answers as usual). */
  checkBodies(check: (req: ReceivedRequest) => string[]): void {
    this.bodyCheck = check;
  }

  /** Resolves with all requests once `predicate` holds; polls, so tests never sleep a fixed time. */
  async waitFor(predicate: (requests: ReceivedRequest[]) => boolean, timeoutMs = 5_000): Promise<ReceivedRequest[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.bodyProblems.length > 0) throw new Error(`HttpsReceiver: a request did not pass its check:\n- ${this.bodyProblems.join('\n- ')}`);
      if (predicate(this.requests)) return this.requests;
      if (Date.now() >= deadline) {
        const seen = this.requests.slice(-10).map((r) => `${r.method} ${r.url} (connection ${r.connectionId})`);
        throw new Error(
          `HttpsReceiver.waitFor: condition not met within ${timeoutMs} ms; ${this.requests.length} request(s) received` +
            (seen.length ? `, the last ${seen.length}: ${seen.join('; ')}` : ''),
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  /** Requests to `path` received and not yet answered or given up by the client, now and at most at once since start. */
  openRequests(path: string): { now: number; peak: number } {
    return { now: this.openByPath.get(path) ?? 0, peak: this.peakByPath.get(path) ?? 0 };
  }

  /** Forgets requests, the connection count and the handler (back to the default); open connections stay. */
  clear(): void {
    this.requests.length = 0;
    this.tlsConnections = 0;
    this.handler = defaultReceiverHandler;
  }

  /** Stops listening and destroys every open connection, so nothing keeps the test process alive. Idempotent. */
  close(): Promise<void> {
    this.closed ??= this.shutDown();
    return this.closed;
  }

  private async shutDown(): Promise<void> {
    this.closing = true;
    for (const [timer, release] of this.waits) {
      clearTimeout(timer);
      release();
    }
    this.waits.clear();
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    this.server.closeAllConnections();
    await closed;
  }

  private receive(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('error', () => undefined);
    req.on('end', () => {
      const url = req.url ?? '/';
      const q = url.indexOf('?');
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
      const connection = this.connections.get(req.socket as TLSSocket) ?? { id: 0, servername: null };
      const record: ReceivedRequest = {
        method: req.method ?? '',
        path: q < 0 ? url : url.slice(0, q),
        url,
        query: new URLSearchParams(q < 0 ? '' : url.slice(q + 1)),
        headers,
        rawBody: Buffer.concat(chunks),
        receivedAt: Date.now(),
        connectionId: connection.id,
        servername: connection.servername,
      };
      this.requests.push(record);
      this.trackOpen(record.path, res);
      if (this.bodyCheck) this.bodyProblems.push(...this.bodyCheck(record).map((problem) => `${record.method} ${record.url}: ${problem}`));
      void this.answer(record, res);
    });
  }

  private async answer(record: ReceivedRequest, res: ServerResponse): Promise<void> {
    let reply: ReceiverResponse;
    try {
      reply = (await this.handler(record)) ?? (defaultReceiverHandler(record) as ReceiverResponse);
    } catch (error) {
      reply = { status: 500, body: `receiver handler failed: ${(error as Error).message}` };
    }
    if (reply.delayMs) await this.wait(reply.delayMs);
    if (this.closing || res.destroyed) return;
    res.writeHead(reply.status, { 'content-type': 'text/plain; charset=utf-8', ...(reply.headers ?? {}) });
    if (reply.bodyDelayMs) {
      res.flushHeaders();
      await this.wait(reply.bodyDelayMs);
      if (this.closing || res.destroyed) return;
    }
    res.end(reply.body ?? '');
  }

  /** Counts a request open from its last byte until its answer is sent or its connection is gone. */
  private trackOpen(path: string, res: ServerResponse): void {
    const open = (this.openByPath.get(path) ?? 0) + 1;
    this.openByPath.set(path, open);
    this.peakByPath.set(path, Math.max(open, this.peakByPath.get(path) ?? 0));
    res.once('close', () => this.openByPath.set(path, (this.openByPath.get(path) ?? 1) - 1));
  }

  /** A delay that close() cuts short, so a slow answer never outlives the receiver. */
  private wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waits.delete(timer);
        resolve();
      }, ms);
      this.waits.set(timer, resolve);
    });
  }
}
