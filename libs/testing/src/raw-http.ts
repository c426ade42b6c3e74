import net from 'node:net';

/** What a raw-socket request got back: the parsed answer (if any), and when and how the socket ended. */
export interface RawAnswer {
  status: number | null;
  headers: Record<string, string>;
  body: any;
  /** Milliseconds from the first byte written to the end of the socket (or to giving up). */
  ms: number;
  /** The socket ended (closed or reset) before `waitMs`. */
  closed: boolean;
  error: string | null;
}

/**
 * Writes `chunks` to the public port as they are (no client library tidies them up), then reads
 * until the server closes the socket, one answer is complete when `untilAnswered`, or `waitMs`
 * passes. For what Node's HTTP parser refuses, and for clients that stall.
 */
export function rawRequest(chunks: (string | Buffer)[], options: { waitMs?: number; untilAnswered?: boolean; url?: string } = {}): Promise<RawAnswer> {
  const url = new URL(options.url ?? required('TEST_PUBLIC_URL'));
  const waitMs = options.waitMs ?? 10_000;
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = net.connect(Number(url.port), url.hostname);
    const received: Buffer[] = [];
    let error: string | null = null;
    let done = false;
    const finish = (closed: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ ...parse(Buffer.concat(received)), ms: Date.now() - started, closed, error });
    };
    const timer = setTimeout(() => finish(false), waitMs);
    socket.on('data', (data) => {
      received.push(data);
      if (options.untilAnswered && complete(Buffer.concat(received))) finish(false);
    });
    socket.on('error', (e: NodeJS.ErrnoException) => (error = e.code ?? e.message));
    socket.on('close', () => finish(true));
    socket.on('connect', () => {
      for (const chunk of chunks) socket.write(chunk);
    });
  });
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

function complete(raw: Buffer): boolean {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) return false;
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(raw.subarray(0, end).toString('latin1'));
  return raw.length >= end + 4 + Number(length?.[1] ?? 0);
}

function parse(raw: Buffer): Pick<RawAnswer, 'status' | 'headers' | 'body'> {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) return { status: null, headers: {}, body: raw.length ? raw.toString('latin1') : undefined };
  const [statusLine, ...lines] = raw.subarray(0, end).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const text = raw.subarray(end + 4).toString('utf8');
  let body: unknown = text || undefined;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text
  }
  return { status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? NaN) || null, headers, body };
}
