// Over 300 lines because one attempt's lifecycle (connection pool per host, SSRF check at connect,
// timeouts, bounded response read, handshake) is one client whose parts share the sockets' state.
import type { ClientRequest, IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import tls from 'node:tls';
import { outgoingHeaders, sentHeaders, type SentHeader } from './outgoing-headers';
import { BodyPrefix, excerptText, RESPONSE_EXCERPT_BYTES } from './response-excerpt';

/**
 * Where one delivery goes. `address` was resolved from `hostname` and checked against the SSRF rules
 * by the caller (architecture section 6); the client connects to exactly `address:port` and never resolves
 * `hostname` again, so a DNS answer that changes between check and connect (rebinding) cannot
 * redirect the request. `hostname` is still what TLS (SNI, certificate) and HTTP (Host) see.
 */
export interface DeliveryTarget {
  hostname: string;
  address: string;
  port: number;
}

/**
 * How one attempt ended. Any status is a `response` (3xx included); what it means is the caller's
 * rule. `requestHeaders`: every header of the request as written (null when no request was made);
 * `responseExcerpt`: the body's first RESPONSE_EXCERPT_BYTES as text (excerptText).
 */
export type AttemptOutcome =
  | { kind: 'response'; status: number; durationMs: number; responseExcerpt: string; requestHeaders: SentHeader[] }
  | { kind: 'timeout'; durationMs: number; requestHeaders: SentHeader[] }
  | { kind: 'network'; error: string; durationMs: number; requestHeaders: SentHeader[] | null };

export type HandshakeResult = { ok: true } | { ok: false; error: string };

export interface WebhookHttpClientOptions {
  /** A PEM CA trusted on top of the default roots (dev and test only: `WEBHOOK_CA_FILE`). */
  extraCaPem?: string | null;
  /**
   * Connections kept per pool: per endpoint for deliveries (`pool`), per target (address, port and
   * name) otherwise; more concurrent requests of one pool wait for one.
   */
  maxSocketsPerTarget?: number;
}

export const DEFAULT_POST_TIMEOUT_MS = 10_000;
export const DEFAULT_HANDSHAKE_TIMEOUT_MS = 5_000;
export const USER_AGENT = 'Svc-Webhooks/1.0';
/**
 * Bytes of a response body read; a longer body is cut there and its connection dropped. A delivery
 * keeps only the first RESPONSE_EXCERPT_BYTES of them and drops the rest as it arrives.
 */
export const RESPONSE_READ_LIMIT = 64 * 1024;

const DEFAULT_MAX_SOCKETS_PER_TARGET = 10;
/**
 * Idle connections are closed after this, a little before the 5 s keep-alive timeout common to
 * Node and many proxies, so a reused connection is rarely one the receiver is closing.
 */
const IDLE_SOCKET_TIMEOUT_MS = 4_000;

/**
 * Pools connections per (address, port, SNI name), and per endpoint when the request names one
 * (`pool`): endpoints of many apps often share a host (a SaaS receiver), and one app's hanging
 * endpoint must not hold the connections another app's deliveries wait for. Node's https.Agent
 * already puts the servername into its pool key when it differs from the host, but the
 * dispatcher's safety depends on a connection made for one name never carrying another name's
 * request, so the key says it outright. Every other TLS setting is agent-wide (one secure
 * context), so it needs no place in the key.
 */
class TargetAgent extends https.Agent {
  override getName(options: https.RequestOptions & { pool?: string } = {}): string {
    return `${options.host}|${options.port}|${options.servername}|${options.pool ?? ''}`;
  }
}

type Exchange =
  | { kind: 'response'; status: number; body: Buffer; truncated: boolean; durationMs: number }
  | { kind: 'timeout'; durationMs: number }
  | { kind: 'network'; error: string; durationMs: number };

interface ExchangeArgs {
  method: 'GET' | 'POST';
  pool?: string;
  target: DeliveryTarget;
  path: string;
  /** Every header, as outgoingHeaders made them: sent exactly so. */
  headers: Record<string, string>;
  body?: Buffer;
  timeoutMs: number;
  /** Bytes of the response body kept (the rest up to RESPONSE_READ_LIMIT is read and dropped). */
  keepBytes: number;
}

/**
 * The dispatcher's only way out to app endpoints: HTTPS to a pre-checked address, keep-alive
 * connections per target, no redirects, one deadline from connect to the last byte, and never an
 * exception: every failure is an outcome the retry rules can judge.
 */
export class WebhookHttpClient {
  private readonly agent: TargetAgent;
  private closed = false;

  constructor(options: WebhookHttpClientOptions = {}) {
    const maxSockets = options.maxSocketsPerTarget ?? DEFAULT_MAX_SOCKETS_PER_TARGET;
    if (!Number.isInteger(maxSockets) || maxSockets < 1) throw new Error(`maxSocketsPerTarget must be a positive integer, got ${maxSockets}`);
    this.agent = new TargetAgent({
      keepAlive: true,
      maxSockets,
      maxFreeSockets: maxSockets,
      scheduling: 'lifo',
      timeout: IDLE_SOCKET_TIMEOUT_MS,
      // Built once: a `ca` array per request would be re-parsed for every connection.
      ...(options.extraCaPem ? { secureContext: tls.createSecureContext({ ca: [...tls.rootCertificates, options.extraCaPem] }) } : {}),
    });
  }

  /**
   * POSTs `body` as is (the signature covers these exact bytes). Defaults: 10 s, JSON content type.
   * `pool` names the connection pool (the endpoint): requests of one pool share its connections.
   */
  async post(args: {
    target: DeliveryTarget;
    url: string;
    headers: Record<string, string>;
    body: Buffer;
    timeoutMs?: number;
    pool?: string;
  }): Promise<AttemptOutcome> {
    const request = this.requestLine(args.target, args.url);
    if ('error' in request) return { kind: 'network', error: request.error, durationMs: 0, requestHeaders: null };
    const headers = outgoingHeaders({
      defaults: { 'Content-Type': 'application/json', 'User-Agent': USER_AGENT },
      headers: args.headers,
      body: args.body,
      hostname: args.target.hostname,
    });
    const result = await this.exchange({
      method: 'POST',
      target: args.target,
      path: request.path,
      headers,
      body: args.body,
      pool: args.pool,
      timeoutMs: args.timeoutMs ?? DEFAULT_POST_TIMEOUT_MS,
      keepBytes: RESPONSE_EXCERPT_BYTES,
    });
    const requestHeaders = sentHeaders(headers);
    if (result.kind !== 'response') return { ...result, requestHeaders };
    return {
      kind: 'response',
      status: result.status,
      durationMs: result.durationMs,
      responseExcerpt: excerptText(result.body, result.truncated),
      requestHeaders,
    };
  }

  /**
   * The subscription handshake (D22): GET the URL with `svc.mode=subscribe`,
   * `svc.verify_token` and `svc.challenge` appended to its own query. It succeeds only on 200 with
   * the challenge as the body. One trailing line break (`\n` or `\r\n`) is forgiven, since `echo`,
   * `print` and many templates add one and it cannot change which challenge was answered; any
   * other difference (spaces, quotes, a JSON wrapping) fails.
   */
  async handshake(args: { target: DeliveryTarget; url: string; verifyToken: string; challenge: string; timeoutMs?: number }): Promise<HandshakeResult> {
    const request = this.requestLine(args.target, args.url);
    if ('error' in request) return { ok: false, error: request.error };
    const added = new URLSearchParams([
      ['svc.mode', 'subscribe'],
      ['svc.verify_token', args.verifyToken],
      ['svc.challenge', args.challenge],
    ]).toString();
    // Appended to the query as sent, so the endpoint's own parameters keep their exact encoding.
    const path = request.path.includes('?') ? `${request.path}&${added}` : `${request.path}?${added}`;
    const timeoutMs = args.timeoutMs ?? DEFAULT_HANDSHAKE_TIMEOUT_MS;
    const result = await this.exchange({
      method: 'GET',
      target: args.target,
      path,
      headers: outgoingHeaders({ defaults: { 'User-Agent': USER_AGENT, Accept: 'text/plain, */*' }, headers: {}, hostname: args.target.hostname }),
      timeoutMs,
      keepBytes: RESPONSE_READ_LIMIT,
    });
    switch (result.kind) {
      case 'timeout':
        return { ok: false, error: `timed out after ${seconds(timeoutMs)} s` };
      case 'network':
        return { ok: false, error: result.error };
      case 'response':
        if (result.status >= 300 && result.status < 400) return { ok: false, error: `redirects are not followed (${result.status})` };
        if (result.status !== 200) return { ok: false, error: `answered ${result.status}` };
        if (result.truncated || !answersChallenge(result.body, args.challenge)) return { ok: false, error: 'body did not equal the challenge' };
        return { ok: true };
    }
  }

  /** Drops every connection, idle or busy; attempts in flight end as network outcomes. */
  async close(): Promise<void> {
    this.closed = true;
    this.agent.destroy();
  }

  /** The request path from the endpoint URL, or why the URL cannot be sent to this target. */
  private requestLine(target: DeliveryTarget, url: string): { path: string } | { error: string } {
    if (this.closed) return { error: 'the HTTP client is closed' };
    if (isIP(target.address) === 0) return { error: `target address ${JSON.stringify(target.address)} is not an IP address` };
    if (!Number.isInteger(target.port) || target.port < 1 || target.port > 65535) return { error: `target port ${target.port} is not a TCP port` };
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return { error: 'the endpoint URL is not a valid URL' };
    }
    if (parsed.protocol !== 'https:') return { error: 'the endpoint URL is not https' };
    if (hostKey(parsed.hostname) !== hostKey(target.hostname))
      return { error: `the endpoint URL's host ${parsed.hostname} is not the target's ${target.hostname}` };
    return { path: `${parsed.pathname}${parsed.search}` };
  }

  private exchange(args: ExchangeArgs): Promise<Exchange> {
    const { target } = args;
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    return new Promise<Exchange>((resolve) => {
      let settled = false;
      let current: ClientRequest | undefined;
      const finish = (outcome: Exchange) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        resolve(outcome);
      };
      const failWith = (text: string) => finish({ kind: 'network', error: this.closed ? 'the HTTP client is closed' : text, durationMs: elapsed() });
      const fail = (error: unknown) => failWith(describeNetworkError(error, target));
      // One deadline for connect, TLS, request, status and body: a slow trickle is a timeout too.
      const deadline = setTimeout(() => {
        finish({ kind: 'timeout', durationMs: elapsed() });
        current?.destroy();
      }, args.timeoutMs);

      const send = (firstTry: boolean) => {
        let responded = false;
        let req: ClientRequest;
        try {
          req = https.request({
            agent: this.agent,
            // Read by TargetAgent.getName only.
            ...(args.pool ? { pool: args.pool } : {}),
            host: target.address,
            port: target.port,
            // SNI, and the name the certificate is verified against (Node checks `servername`, not
            // `host`, when both are given); no per-request checkServerIdentity, as Node never reuses
            // a pooled connection for a request with a different one.
            servername: target.hostname,
            rejectUnauthorized: true,
            method: args.method,
            path: args.path,
            headers: args.headers,
          });
        } catch (error) {
          fail(error);
          return;
        }
        current = req;
        req.on('response', (res: IncomingMessage) => {
          responded = true;
          readBody(
            res,
            args.keepBytes,
            (body, truncated) => finish({ kind: 'response', status: res.statusCode ?? 0, body, truncated, durationMs: elapsed() }),
            () => failWith(`connection closed before the response (${res.statusCode}) was complete`),
          );
        });
        req.on('error', (error) => {
          if (settled) return;
          // A kept-alive connection the receiver closed just as it was reused fails before any
          // answer; Node's documented remedy is to send once more (deliveries are at-least-once,
          // receivers dedupe on the event id, so a second copy is allowed where a lost one is not).
          if (firstTry && req.reusedSocket && !responded && isStaleConnectionError(error)) {
            send(false);
            return;
          }
          fail(error);
        });
        req.end(args.body);
      };
      send(true);
    });
  }
}

/**
 * Reads up to RESPONSE_READ_LIMIT bytes, keeping the first `keepBytes` (so a body read to its end
 * leaves the connection fit for reuse, while memory per attempt stays at `keepBytes`). A longer
 * body is cut there and the connection destroyed (not drained: the status is what counts, and
 * draining would let a receiver hold the attempt).
 */
function readBody(res: IncomingMessage, keepBytes: number, done: (body: Buffer, truncated: boolean) => void, cutOff: () => void): void {
  const prefix = new BodyPrefix(keepBytes);
  let over = false;
  res.on('data', (chunk: Buffer) => {
    if (over) return;
    prefix.add(chunk);
    if (prefix.bytesRead > RESPONSE_READ_LIMIT) {
      over = true;
      done(prefix.bytes(), true);
      res.destroy();
    }
  });
  res.on('end', () => {
    if (!over) done(prefix.bytes(), prefix.truncated);
  });
  res.on('error', () => {
    if (!over) cutOff();
  });
}

function answersChallenge(body: Buffer, challenge: string): boolean {
  const expected = Buffer.from(challenge, 'utf8');
  return [expected, Buffer.concat([expected, Buffer.from('\n')]), Buffer.concat([expected, Buffer.from('\r\n')])].some((candidate) => body.equals(candidate));
}

function hostKey(hostname: string): string {
  return hostname.toLowerCase().replace(/\.$/, '');
}

function seconds(ms: number): string {
  return String(Math.round(ms / 100) / 10);
}

function isStaleConnectionError(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ECONNRESET' || code === 'EPIPE';
}

const UNTRUSTED_CERT_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
]);

/** A short, human reason for the delivery log: what failed, not a stack trace. */
function describeNetworkError(error: unknown, target: DeliveryTarget): string {
  const { code, message } = error as NodeJS.ErrnoException;
  const at = isIP(target.address) === 6 ? `[${target.address}]:${target.port}` : `${target.address}:${target.port}`;
  let text: string;
  if (code === 'ECONNREFUSED') text = `connection refused by ${at}`;
  else if (code === 'ECONNRESET') text = message === 'socket hang up' ? 'connection closed before a response' : 'connection reset by the receiver';
  else if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') text = `${at} is unreachable (${code})`;
  else if (code === 'ETIMEDOUT') text = `connecting to ${at} timed out`;
  else if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') text = `TLS: certificate is not valid for ${target.hostname}`;
  else if (code === 'CERT_HAS_EXPIRED') text = 'TLS: certificate has expired';
  else if (code === 'CERT_NOT_YET_VALID') text = 'TLS: certificate is not yet valid';
  else if (code && UNTRUSTED_CERT_CODES.has(code)) text = `TLS: certificate is not signed by a trusted authority (${code})`;
  else if (code && /CERT/.test(code)) text = `TLS: certificate rejected (${code})`;
  else if (code && /^ERR_(SSL|TLS)_/.test(code)) text = `TLS: ${message}`;
  else if (code === 'ERR_INVALID_CHAR' || code === 'ERR_INVALID_HTTP_TOKEN') text = `invalid request header: ${message}`;
  else text = code ? `${message} (${code})` : String(message ?? error);
  return text.length > 300 ? `${text.slice(0, 297)}...` : text;
}
