/*
 * Long: the local CA and certificates (openssl) and the recording receiver live together; they are to
 * be split into a certificates file and a receiver file.
 */
import { execFileSync } from 'node:child_process';
import { createPrivateKey, randomBytes, X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';

/**
 * A local HTTPS webhook receiver for tests and the dev stack: a test CA and a server certificate
 * made with the openssl CLI, and a server that records every request (raw body bytes, headers, the
 * TLS connection and SNI name it came on) and answers as the test says.
 */

export interface TestCertificates {
  caPem: string;
  /** The CA alone, for WEBHOOK_CA_FILE. Named by its fingerprint, so it never changes under a reader. */
  caFile: string;
  certPem: string;
  keyPem: string;
}

/** Names every leaf covers; DESIGN 6 pins hooks.local.test (and friends) to local ports in dev and test. */
export const TEST_CERT_NAMES = ['*.local.test', 'hooks.local.test', 'localhost'];

const OPENSSL = '/usr/bin/openssl';
const BUNDLE_FILE = 'test-certs.json';
const CA_DAYS = 7300;
const LEAF_DAYS = 3650;
/** Reused material must stay valid at least this long, so no run starts with a certificate about to lapse. */
const MIN_REMAINING_MS = 30 * 24 * 3600 * 1000;

interface Bundle {
  caKeyPem: string;
  caPem: string;
  keyPem: string;
  certPem: string;
}

/**
 * A local CA and a leaf certificate for TEST_CERT_NAMES plus `hostnames`, signed by it: made once
 * in `dir` and reused while valid and covering every name asked for. When a name is missing the
 * leaf is reissued by the same CA (covering the old names too), so CA files already handed out stay
 * good. Validity is judged by the real clock, as TLS does, never by the platform's test clock.
 *
 * Lock-free for concurrent callers (parallel Jest workers): the four PEMs live in one JSON file
 * replaced by rename, so a reader sees one consistent set; if two callers generate at once, each
 * returns its own set and the last rename wins on disk.
 */
export function testCertificates(dir: string, hostnames: string[] = []): TestCertificates {
  const wanted = [...new Set([...TEST_CERT_NAMES, ...hostnames].map((name) => name.toLowerCase()))];
  for (const name of wanted) if (!/^(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*$/.test(name)) throw new Error(`testCertificates: ${JSON.stringify(name)} is not a DNS name`);
  mkdirSync(dir, { recursive: true });
  const existing = readBundle(path.join(dir, BUNDLE_FILE));
  let bundle: Bundle;
  if (existing && caUsable(existing) && leafUsable(existing, wanted)) {
    bundle = existing;
  } else {
    const keepCa = existing !== null && caUsable(existing);
    const ca = keepCa ? { caKeyPem: existing.caKeyPem, caPem: existing.caPem } : generateCa();
    const names = keepCa ? [...new Set([...wanted, ...leafDnsNames(existing)])] : wanted;
    bundle = { ...ca, ...issueLeaf(ca, names) };
    writeAtomically(path.join(dir, BUNDLE_FILE), JSON.stringify(bundle, null, 2));
  }
  const fingerprint = new X509Certificate(bundle.caPem).fingerprint256.replace(/:/g, '').slice(0, 16).toLowerCase();
  const caFile = path.join(dir, `ca-${fingerprint}.pem`);
  if (!existsSync(caFile) || readFileSync(caFile, 'utf8') !== bundle.caPem) writeAtomically(caFile, bundle.caPem);
  return { caPem: bundle.caPem, caFile, certPem: bundle.certPem, keyPem: bundle.keyPem };
}

function readBundle(file: string): Bundle | null {
  try {
    const raw = JSON.parse(readFileSync(file, 'utf8')) as Partial<Bundle>;
    if ([raw.caKeyPem, raw.caPem, raw.keyPem, raw.certPem].every((pem) => typeof pem === 'string')) return raw as Bundle;
  } catch {
    // missing or unreadable: made afresh
  }
  return null;
}

function validLongEnough(cert: X509Certificate): boolean {
  const now = Date.now();
  return new Date(cert.validFrom).getTime() <= now && new Date(cert.validTo).getTime() - now > MIN_REMAINING_MS;
}

function caUsable(bundle: Bundle): boolean {
  try {
    const ca = new X509Certificate(bundle.caPem);
    return ca.ca && validLongEnough(ca) && ca.checkPrivateKey(createPrivateKey(bundle.caKeyPem));
  } catch {
    return false;
  }
}

function leafUsable(bundle: Bundle, names: string[]): boolean {
  try {
    const ca = new X509Certificate(bundle.caPem);
    const leaf = new X509Certificate(bundle.certPem);
    if (!leaf.checkIssued(ca) || !leaf.verify(ca.publicKey) || !leaf.checkPrivateKey(createPrivateKey(bundle.keyPem)) || !validLongEnough(leaf)) return false;
    const dnsNames = leafDnsNames(bundle);
    return names.every((name) => (name.startsWith('*.') ? dnsNames.includes(name) : leaf.checkHost(name) !== undefined));
  } catch {
    return false;
  }
}

function leafDnsNames(bundle: Bundle): string[] {
  try {
    const san = new X509Certificate(bundle.certPem).subjectAltName ?? '';
    return san
      .split(', ')
      .filter((entry) => entry.startsWith('DNS:'))
      .map((entry) => entry.slice(4).toLowerCase());
  } catch {
    return [];
  }
}

/** Runs openssl in a scratch directory holding `files`; returns the named outputs. */
function withOpenssl<T>(files: Record<string, string>, run: (file: (name: string) => string) => T): T {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'test-certs-'));
  try {
    for (const [name, content] of Object.entries(files)) writeFileSync(path.join(scratch, name), content, { mode: 0o600 });
    return run((name) => path.join(scratch, name));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

function openssl(args: string[]): void {
  execFileSync(OPENSSL, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, OPENSSL_CONF: '/dev/null' } });
}

function generateCa(): { caKeyPem: string; caPem: string } {
  // A random CN, so two test CAs on one machine are never mistaken for each other in a chain.
  const config = [
    '[req]',
    'distinguished_name = dn',
    'prompt = no',
    'x509_extensions = v3_ca',
    '[dn]',
    `CN = Platform Test CA ${randomBytes(4).toString('hex')}`,
    '[v3_ca]',
    'basicConstraints = critical, CA:TRUE, pathlen:0',
    'keyUsage = critical, keyCertSign, cRLSign',
    'subjectKeyIdentifier = hash',
    '',
  ].join('\n');
  return withOpenssl({ 'ca.cnf': config }, (file) => {
    openssl(['req', '-x509', '-new', '-config', file('ca.cnf'), '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-sha256', '-days', String(CA_DAYS), '-keyout', file('ca.key'), '-out', file('ca.pem')]);
    return { caKeyPem: readFileSync(file('ca.key'), 'utf8'), caPem: readFileSync(file('ca.pem'), 'utf8') };
  });
}

function issueLeaf(ca: { caKeyPem: string; caPem: string }, names: string[]): { keyPem: string; certPem: string } {
  const commonName = names.find((name) => !name.startsWith('*.')) ?? names[0];
  const request = ['[req]', 'distinguished_name = dn', 'prompt = no', '[dn]', `CN = ${commonName}`, ''].join('\n');
  const extensions = [
    '[v3_leaf]',
    'basicConstraints = critical, CA:FALSE',
    'keyUsage = critical, digitalSignature',
    'extendedKeyUsage = serverAuth',
    `subjectAltName = ${names.map((name) => `DNS:${name}`).join(', ')}`,
    'subjectKeyIdentifier = hash',
    'authorityKeyIdentifier = keyid, issuer',
    '',
  ].join('\n');
  return withOpenssl({ 'ca.key': ca.caKeyPem, 'ca.pem': ca.caPem, 'leaf.cnf': request, 'leaf.ext': extensions }, (file) => {
    openssl(['req', '-new', '-config', file('leaf.cnf'), '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', file('leaf.key'), '-out', file('leaf.csr')]);
    const serial = `0x${(randomBytes(16)[0] & 0x7f).toString(16).padStart(2, '0')}${randomBytes(15).toString('hex')}`;
    openssl(['x509', '-req', '-in', file('leaf.csr'), '-CA', file('ca.pem'), '-CAkey', file('ca.key'), '-set_serial', serial, '-sha256', '-days', String(LEAF_DAYS), '-extfile', file('leaf.ext'), '-extensions', 'v3_leaf', '-out', file('leaf.pem')]);
    return { keyPem: readFileSync(file('leaf.key'), 'utf8'), certPem: readFileSync(file('leaf.pem'), 'utf8') };
  });
}

/** Write to a unique temp name beside the target, then rename: readers see the old or the new file, never half of one. */
function writeAtomically(file: string, content: string): void {
  const temp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(temp, content, { mode: 0o600 });
  renameSync(temp, file);
}

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
  body?: string;
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
