import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { ConfigError } from '#platform/service-kit';

/** Where a pinned dev host really listens; deliveries treat it as the host's checked address on 443. */
export interface DevHostPin {
  address: string;
  port: number;
}

/**
 * Switches that weaken the SSRF defence so tests can reach local receivers (architecture section 6).
 * All three are dev and test only.
 */
export interface WebhookNetworkConfig {
  devHosts: Map<string, DevHostPin>;
  /** Extra trusted CA (PEM), so a local receiver's test certificate verifies. */
  extraCaPem: string | null;
  /** Resolver servers in `dns.setServers` form, so tests can answer with a fake DNS server. */
  dnsServers: string[] | null;
}

const DEV_ONLY_VARIABLES = ['WEBHOOK_DEV_HOSTS', 'WEBHOOK_CA_FILE', 'WEBHOOK_DNS_SERVERS'] as const;

const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;

function parsePort(text: string): number | null {
  if (!/^\d{1,5}$/.test(text)) return null;
  const port = Number(text);
  return port >= 1 && port <= 65535 ? port : null;
}

/** `ip:port` or `[ipv6]:port`; the port is optional only where the caller allows it. */
function parseAddressAndPort(text: string, portRequired: boolean): { address: string; port: number | null } | null {
  const bracketed = /^\[([^\]]+)\](?::(.*))?$/.exec(text);
  if (bracketed) {
    const [, address, portText] = bracketed;
    if (isIP(address) !== 6) return null;
    if (portText === undefined) return portRequired ? null : { address, port: null };
    const port = parsePort(portText);
    return port === null ? null : { address, port };
  }
  if (isIP(text) === 6) return portRequired ? null : { address: text, port: null };
  const colon = text.lastIndexOf(':');
  const address = colon === -1 ? text : text.slice(0, colon);
  if (isIP(address) !== 4) return null;
  if (colon === -1) return portRequired ? null : { address, port: null };
  const port = parsePort(text.slice(colon + 1));
  return port === null ? null : { address, port };
}

/** A name the URL parser keeps as it is: no IP literal (in any spelling), no IDN, no stray characters. */
function devHostName(raw: string): string | null {
  const name = raw.trim().toLowerCase().replace(/\.$/, '');
  if (!name || name.length > 253 || !name.split('.').every((label) => LABEL.test(label))) return null;
  try {
    const parsed = new URL(`https://${name}/`).hostname;
    return parsed === name && isIP(parsed) === 0 ? name : null;
  } catch {
    return null;
  }
}

/**
 * Reads `WEBHOOK_DEV_HOSTS` (`host=ip:port[,host=[ipv6]:port…]`). Pins are what let the e2e tests
 * deliver to a receiver on localhost, so a typo must stop the start rather than silently pin nothing.
 */
export function parseDevHosts(value: string | undefined): Map<string, DevHostPin> {
  const pins = new Map<string, DevHostPin>();
  if (value === undefined) return pins;
  for (const rawEntry of value.split(',')) {
    const entry = rawEntry.trim();
    if (!entry) continue;
    const shape = 'expected host=ip:port, IPv6 in brackets (hooks.local.test=127.0.0.1:8443 or hooks.local.test=[::1]:8443)';
    const equals = entry.indexOf('=');
    if (equals === -1) throw new Error(`WEBHOOK_DEV_HOSTS entry "${entry}": ${shape}`);
    const host = devHostName(entry.slice(0, equals));
    if (!host)
      throw new Error(
        `WEBHOOK_DEV_HOSTS entry "${entry}": "${entry.slice(0, equals).trim()}" is not a host name (IP literals and non-ASCII names cannot be pinned)`,
      );
    const target = parseAddressAndPort(entry.slice(equals + 1).trim(), true);
    if (!target || target.port === null) throw new Error(`WEBHOOK_DEV_HOSTS entry "${entry}": ${shape}`);
    if (pins.has(host)) throw new Error(`WEBHOOK_DEV_HOSTS pins ${host} twice`);
    pins.set(host, { address: target.address, port: target.port });
  }
  return pins;
}

function parseDnsServers(value: string): string[] {
  const servers = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (!servers.length) throw new ConfigError('WEBHOOK_DNS_SERVERS is set but lists no server');
  return servers.map((server) => {
    const parsed = parseAddressAndPort(server, false);
    if (!parsed) throw new ConfigError(`WEBHOOK_DNS_SERVERS entry "${server}": expected ip[:port], IPv6 in brackets when a port is given ([::1]:5353)`);
    if (parsed.port === null) return parsed.address;
    return isIP(parsed.address) === 6 ? `[${parsed.address}]:${parsed.port}` : `${parsed.address}:${parsed.port}`;
  });
}

function readCaFile(path: string): string {
  let pem: string;
  try {
    pem = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`WEBHOOK_CA_FILE=${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new ConfigError(`WEBHOOK_CA_FILE=${path} holds no PEM certificate`);
  return pem;
}

/**
 * The webhook network switches from the environment. Production refuses every one of them: each
 * lets deliveries reach places (local ports, hosts vouched for by a private CA or a fake DNS) that
 * the SSRF defence exists to keep out of reach.
 */
export function webhookNetworkConfig(env: NodeJS.ProcessEnv, production: boolean): WebhookNetworkConfig {
  const present = (name: (typeof DEV_ONLY_VARIABLES)[number]) => (env[name] ?? '').trim() !== '';
  const set = DEV_ONLY_VARIABLES.filter(present);
  if (production && set.length)
    throw new ConfigError(`${set.join(', ')} ${set.length === 1 ? 'is' : 'are'} for dev and tests only; refusing to start in production`);
  let devHosts: Map<string, DevHostPin>;
  try {
    devHosts = parseDevHosts(env.WEBHOOK_DEV_HOSTS);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  return {
    devHosts,
    extraCaPem: present('WEBHOOK_CA_FILE') ? readCaFile(env.WEBHOOK_CA_FILE!.trim()) : null,
    dnsServers: present('WEBHOOK_DNS_SERVERS') ? parseDnsServers(env.WEBHOOK_DNS_SERVERS!) : null,
  };
}
