import { isIPv4, isIPv6 } from 'node:net';

/**
 * Which IP addresses a webhook delivery may never connect to (architecture section 6, SSRF). The rules
 * work on the address bytes rather than on text, so every spelling of one address is judged alike.
 */

interface Rule {
  /** Network address bytes (4 for IPv4, 16 for IPv6); bits past `bits` are ignored. */
  network: number[];
  bits: number;
  reason: string;
}

const CLOUD_METADATA = 'cloud metadata';

const rule = (network: number[], bits: number, reason: string): Rule => ({ network, bits, reason });

// Exact metadata endpoints come first so their reason beats the range they sit in.
const IPV4_RULES: Rule[] = [
  rule([169, 254, 169, 254], 32, CLOUD_METADATA),
  rule([100, 100, 100, 200], 32, CLOUD_METADATA),
  rule([255, 255, 255, 255], 32, 'broadcast'),
  rule([0, 0, 0, 0], 8, 'unspecified'),
  rule([10, 0, 0, 0], 8, 'private'),
  rule([100, 64, 0, 0], 10, 'CGNAT'),
  rule([127, 0, 0, 0], 8, 'loopback'),
  rule([169, 254, 0, 0], 16, 'link-local'),
  rule([172, 16, 0, 0], 12, 'private'),
  rule([192, 0, 0, 0], 24, 'IETF protocol assignment'),
  rule([192, 0, 2, 0], 24, 'documentation'),
  rule([192, 88, 99, 0], 24, '6to4 relay anycast'),
  rule([192, 168, 0, 0], 16, 'private'),
  rule([198, 18, 0, 0], 15, 'benchmarking'),
  rule([198, 51, 100, 0], 24, 'documentation'),
  rule([203, 0, 113, 0], 24, 'documentation'),
  rule([224, 0, 0, 0], 4, 'multicast'),
  rule([240, 0, 0, 0], 4, 'reserved'),
];

const v6 = (...groups: number[]): number[] => {
  const full = [...groups, ...new Array<number>(8 - groups.length).fill(0)];
  return full.flatMap((group) => [group >> 8, group & 0xff]);
};

const IPV6_RULES: Rule[] = [
  rule(v6(0xfd00, 0x0ec2, 0, 0, 0, 0, 0, 0x0254), 128, CLOUD_METADATA),
  rule(v6(0, 0, 0, 0, 0, 0, 0, 0), 128, 'unspecified'),
  rule(v6(0, 0, 0, 0, 0, 0, 0, 1), 128, 'loopback'),
  // Stacks route these to the embedded IPv4 address; no public endpoint needs to be written so.
  rule(v6(0, 0, 0, 0, 0, 0xffff), 96, 'IPv4-mapped'),
  rule(v6(0, 0, 0, 0, 0, 0), 96, 'IPv4-compatible'),
  rule(v6(0x64, 0xff9b, 1), 48, 'local NAT64'),
  rule(v6(0x100, 0, 0, 0), 64, 'discard'),
  rule(v6(0x2001, 0x0db8), 32, 'documentation'),
  rule(v6(0x3fff), 20, 'documentation'),
  rule(v6(0x2001, 0x0002, 0), 48, 'benchmarking'),
  // Teredo tunnels to an IPv4 address hidden (obfuscated) in the last 32 bits.
  rule(v6(0x2001, 0), 32, 'Teredo'),
  rule(v6(0xfc00), 7, 'unique-local'),
  rule(v6(0xfe80), 10, 'link-local'),
  rule(v6(0xfec0), 10, 'site-local'),
  rule(v6(0xff00), 8, 'multicast'),
];

const NAT64 = rule(v6(0x64, 0xff9b, 0, 0, 0, 0), 96, 'NAT64');
const SIX_TO_FOUR = rule(v6(0x2002), 16, '6to4');
/** Only 2000::/3 is allocated for global unicast; anything else outside the rules is not a host on the Internet. */
const GLOBAL_UNICAST = rule(v6(0x2000), 3, 'global unicast');

function matches(bytes: number[], { network, bits }: Rule): boolean {
  for (let bit = 0; bit < bits; bit += 8) {
    const width = Math.min(8, bits - bit);
    const mask = (0xff << (8 - width)) & 0xff;
    if ((bytes[bit / 8] & mask) !== (network[bit / 8] & mask)) return false;
  }
  return true;
}

function firstMatch(bytes: number[], rules: Rule[]): string | null {
  return rules.find((candidate) => matches(bytes, candidate))?.reason ?? null;
}

/** Dotted-quad IPv4 to its 4 bytes; null unless strictly canonical (what DNS answers contain). */
function ipv4Bytes(address: string): number[] | null {
  if (!isIPv4(address)) return null;
  return address.split('.').map(Number);
}

/** IPv6 text (compressed, with or without a dotted-quad tail) to its 16 bytes; null if not IPv6. */
function ipv6Bytes(address: string): number[] | null {
  if (!isIPv6(address) || address.includes('%')) return null;
  let text = address.toLowerCase();
  const tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  if (text.slice(lastColon + 1).includes('.')) {
    const quad = ipv4Bytes(text.slice(lastColon + 1));
    if (!quad) return null;
    tail.push(...quad);
    text = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const [head, rest] = text.split('::');
  const parse = (part: string | undefined) => (part ? part.split(':').map((group) => parseInt(group, 16)) : []);
  const headGroups = parse(head);
  const restGroups = parse(rest);
  const groups = rest === undefined ? headGroups : [...headGroups, ...new Array<number>(8 - headGroups.length - restGroups.length).fill(0), ...restGroups];
  if (groups.length !== 8 || groups.some((group) => !Number.isInteger(group) || group < 0 || group > 0xffff)) return null;
  const bytes = groups.flatMap((group) => [group >> 8, group & 0xff]);
  if (tail.length) bytes.splice(12, 4, ...tail);
  return bytes;
}

function ipv4Reason(bytes: number[]): string | null {
  return firstMatch(bytes, IPV4_RULES);
}

function ipv6Reason(bytes: number[]): string | null {
  const direct = firstMatch(bytes, IPV6_RULES);
  if (direct) return direct;
  // Translation prefixes reach an IPv4 host: judge the host they reach.
  if (matches(bytes, NAT64)) {
    const embedded = ipv4Reason(bytes.slice(12, 16));
    return embedded ? `NAT64 of a ${embedded} address` : null;
  }
  if (matches(bytes, SIX_TO_FOUR)) {
    const embedded = ipv4Reason(bytes.slice(2, 6));
    return embedded ? `6to4 of a ${embedded} address` : null;
  }
  return matches(bytes, GLOBAL_UNICAST) ? null : 'reserved';
}

/**
 * Why a webhook may not connect to `address` (an IPv4 or IPv6 literal as DNS returns it), or null
 * when it is a public address. Text that is not a plain IP literal is refused: an address we
 * cannot read is an address we cannot vouch for.
 */
export function blockedAddressReason(address: string): string | null {
  if (typeof address !== 'string') return 'not an IP address';
  const four = ipv4Bytes(address);
  if (four) return ipv4Reason(four);
  const six = ipv6Bytes(address);
  if (six) return ipv6Reason(six);
  return 'not an IP address';
}
