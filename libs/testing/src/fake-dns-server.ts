import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { isIPv4, isIPv6 } from 'node:net';

/** Addresses of a name (either family, mixed), or a failure the server should answer with. */
export type FakeDnsRecord = string[] | 'nxdomain' | 'servfail';

export interface FakeDnsQuery {
  /** Lower-cased, without a trailing dot. */
  name: string;
  /** `A`, `AAAA`, or `TYPE<n>` for anything else. */
  type: string;
}

const TYPE_A = 1;
const TYPE_AAAA = 28;
const CLASS_IN = 1;
const RCODE_FORMERR = 1;
const RCODE_SERVFAIL = 2;
const RCODE_NXDOMAIN = 3;
const RCODE_NOTIMP = 4;
const HEADER_BYTES = 12;

const nameKey = (name: string) => name.toLowerCase().replace(/\.$/, '');

function ipv4Bytes(address: string): number[] {
  return address.split('.').map(Number);
}

function ipv6Bytes(address: string): number[] {
  let text = address.toLowerCase();
  let tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  if (text.slice(lastColon + 1).includes('.')) {
    tail = ipv4Bytes(text.slice(lastColon + 1));
    text = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const groupsOf = (part: string | undefined) => (part ? part.split(':').map((group) => parseInt(group, 16)) : []);
  const [head, rest] = text.split('::');
  const headGroups = groupsOf(head);
  const restGroups = groupsOf(rest);
  const groups = rest === undefined ? headGroups : [...headGroups, ...new Array<number>(8 - headGroups.length - restGroups.length).fill(0), ...restGroups];
  const bytes = groups.flatMap((group) => [group >> 8, group & 0xff]);
  if (tail.length) bytes.splice(12, 4, ...tail);
  return bytes;
}

interface Question {
  id: number;
  flags: number;
  name: string;
  type: number;
  /** The question section exactly as asked: resolvers drop replies whose question differs by a byte. */
  raw: Buffer;
}

function readQuestion(message: Buffer): Question | { id: number; flags: number; error: number } | null {
  if (message.length < HEADER_BYTES) return null;
  const id = message.readUInt16BE(0);
  const flags = message.readUInt16BE(2);
  if (flags & 0x8000) return null;
  if ((flags >> 11) & 0xf) return { id, flags, error: RCODE_NOTIMP };
  if (message.readUInt16BE(4) !== 1) return { id, flags, error: RCODE_FORMERR };
  const labels: string[] = [];
  let offset = HEADER_BYTES;
  for (;;) {
    if (offset >= message.length) return { id, flags, error: RCODE_FORMERR };
    const length = message[offset];
    if (length === 0) break;
    if (length > 63 || offset + 1 + length > message.length) return { id, flags, error: RCODE_FORMERR };
    labels.push(message.toString('latin1', offset + 1, offset + 1 + length));
    offset += 1 + length;
  }
  const end = offset + 1 + 4;
  if (end > message.length) return { id, flags, error: RCODE_FORMERR };
  return { id, flags, name: labels.join('.'), type: message.readUInt16BE(offset + 1), raw: message.subarray(HEADER_BYTES, end) };
}

function header(id: number, queryFlags: number, rcode: number, questions: number, answers: number): Buffer {
  const out = Buffer.alloc(HEADER_BYTES);
  out.writeUInt16BE(id, 0);
  // QR, same opcode, authoritative, recursion desired as asked, recursion available.
  out.writeUInt16BE(0x8000 | (queryFlags & 0x7800) | 0x0400 | (queryFlags & 0x0100) | 0x0080 | rcode, 2);
  out.writeUInt16BE(questions, 4);
  out.writeUInt16BE(answers, 6);
  return out;
}

function addressRecord(type: number, address: string): Buffer {
  const data = type === TYPE_A ? ipv4Bytes(address) : ipv6Bytes(address);
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt16BE(0xc000 | HEADER_BYTES, 0);
  out.writeUInt16BE(type, 2);
  out.writeUInt16BE(CLASS_IN, 4);
  out.writeUInt32BE(0, 6);
  out.writeUInt16BE(data.length, 10);
  Buffer.from(data).copy(out, 12);
  return out;
}

/**
 * A real DNS server over UDP with a table of answers, so tests can drive the platform's resolver
 * (and the SSRF checks behind it) through every answer an attacker's name server could give,
 * including a name that changes between two lookups. TTL 0: nothing is cached between answers.
 */
export class FakeDnsServer {
  readonly queries: FakeDnsQuery[] = [];
  private readonly records = new Map<string, FakeDnsRecord>();

  private constructor(
    private readonly socket: Socket,
    readonly host: string,
    readonly port: number,
  ) {}

  static async start(options: { port?: number; host?: string } = {}): Promise<FakeDnsServer> {
    const host = options.host ?? '127.0.0.1';
    const socket = createSocket(isIPv6(host) ? 'udp6' : 'udp4');
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(options.port ?? 0, host, () => {
        socket.off('error', reject);
        resolve();
      });
    });
    const server = new FakeDnsServer(socket, host, socket.address().port);
    socket.on('message', (message, remote) => server.reply(message, remote));
    return server;
  }

  /** This server in `dns.setServers` form. */
  get address(): string {
    return isIPv6(this.host) ? `[${this.host}]:${this.port}` : `${this.host}:${this.port}`;
  }

  /** Sets what `name` answers from now on (replacing any earlier answer). */
  answer(name: string, record: FakeDnsRecord): this {
    if (Array.isArray(record)) {
      const bad = record.find((address) => !isIPv4(address) && !isIPv6(address));
      if (bad !== undefined) throw new Error(`FakeDnsServer: ${JSON.stringify(bad)} is not an IP address`);
      if (record.some((address) => address.includes('%'))) throw new Error('FakeDnsServer: scoped IPv6 addresses cannot be served');
    }
    this.records.set(nameKey(name), Array.isArray(record) ? [...record] : record);
    return this;
  }

  /** Forgets every answer and every recorded query. */
  clear(): void {
    this.records.clear();
    this.queries.length = 0;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.socket.close(() => resolve()));
  }

  private reply(message: Buffer, remote: RemoteInfo): void {
    const question = readQuestion(message);
    if (!question) return;
    if ('error' in question) {
      this.socket.send(header(question.id, question.flags, question.error, 0, 0), remote.port, remote.address);
      return;
    }
    const name = nameKey(question.name);
    this.queries.push({ name, type: question.type === TYPE_A ? 'A' : question.type === TYPE_AAAA ? 'AAAA' : `TYPE${question.type}` });
    const record = this.records.get(name);
    let rcode = 0;
    let answers: Buffer[] = [];
    if (record === undefined || record === 'nxdomain') rcode = RCODE_NXDOMAIN;
    else if (record === 'servfail') rcode = RCODE_SERVFAIL;
    else if (question.type === TYPE_A) answers = record.filter((address) => isIPv4(address)).map((address) => addressRecord(TYPE_A, address));
    else if (question.type === TYPE_AAAA) answers = record.filter((address) => isIPv6(address)).map((address) => addressRecord(TYPE_AAAA, address));
    this.socket.send(Buffer.concat([header(question.id, question.flags, rcode, 1, answers.length), question.raw, ...answers]), remote.port, remote.address);
  }
}
