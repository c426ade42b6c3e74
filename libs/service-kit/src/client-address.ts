import type { IncomingMessage } from 'node:http';
import { BlockList, isIP, isIPv4 } from 'node:net';
import { ConfigError } from './config';

/**
 * `TRUSTED_PROXIES` of an app people reach through a proxy (the gateway, the console), read the one
 * way both read it (ADR 0209): addresses or CIDRs of the proxies whose X-Forwarded-For is believed,
 * or `none` when the app is exposed directly. Production must say which: unset, every client behind
 * an ingress would count as the ingress pod. Dev and test default to none.
 */
export function trustedProxiesFromEnv(env: NodeJS.ProcessEnv, production: boolean): BlockList {
  const entries = (env.TRUSTED_PROXIES ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (entries.length === 0) {
    if (production)
      throw new ConfigError(
        'TRUSTED_PROXIES is required in production: the addresses or CIDRs of the proxies in front (the ingress controller pods), or none when exposed directly',
      );
    return trustedProxies([]);
  }
  if (entries.some((entry) => entry.toLowerCase() === 'none')) {
    if (entries.length > 1) throw new ConfigError('TRUSTED_PROXIES is either none or a list of addresses and CIDRs, not both');
    return trustedProxies([]);
  }
  return trustedProxies(entries);
}

/** Addresses and CIDRs of the proxies in front of an app; see trustedProxiesFromEnv(). */
export function trustedProxies(entries: string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [address, bits, ...rest] = entry.split('/');
    const type = isIPv4(address) ? 'ipv4' : 'ipv6';
    const prefix = Number(bits);
    const validPrefix = bits === undefined || (/^\d+$/.test(bits) && prefix <= (type === 'ipv4' ? 32 : 128));
    if (!isIP(address) || !validPrefix || rest.length > 0) throw new ConfigError(`TRUSTED_PROXIES: ${entry} is not an address or CIDR`);
    if (bits === undefined) list.addAddress(address, type);
    else list.addSubnet(address, prefix, type);
  }
  return list;
}

/**
 * The client a request counts against: the socket's peer, or, when that peer is a trusted proxy,
 * the nearest X-Forwarded-For hop that is not one (hops further left are whatever the client wrote).
 * IPv6 clients count by their /64, the block one subscriber usually holds.
 */
export function clientAddress(req: IncomingMessage, trusted: BlockList): string {
  let address = plain(req.socket.remoteAddress ?? '');
  const forwarded = req.headers['x-forwarded-for'];
  const hops = (Array.isArray(forwarded) ? forwarded.join(',') : (forwarded ?? '')).split(',').map((hop) => hop.trim());
  while (isTrusted(trusted, address) && hops.length > 0) {
    const hop = plain(hops.pop()!);
    if (!isIP(hop)) break;
    address = hop;
  }
  return isIPv4(address) || !isIP(address) ? address : ipv6Prefix64(address);
}

function isTrusted(trusted: BlockList, address: string): boolean {
  const type = isIP(address);
  return type !== 0 && trusted.check(address, type === 4 ? 'ipv4' : 'ipv6');
}

/** `::ffff:192.0.2.1` as IPv4. */
function plain(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1] : address;
}

function ipv6Prefix64(address: string): string {
  const [head, tail] = address.split('%')[0].split('::');
  const left = head ? head.split(':') : [];
  const right = tail === undefined ? [] : tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  return (
    groups
      .slice(0, 4)
      .map((g) => g.toLowerCase().replace(/^0+(?=.)/, ''))
      .join(':') + '::/64'
  );
}
