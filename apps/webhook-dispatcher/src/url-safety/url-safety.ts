import { isIPv4 } from 'node:net';
import { WEBHOOK_URL_REFUSAL_CODES, WEBHOOKS } from '#platform/contracts';
import { blockedAddressReason } from './blocked-addresses';
import type { DevHostPin } from './dev-hosts';
import type { HostResolver } from './host-resolver';

/** The codes a URL can be refused with (kept under this name for the dispatcher's callers). */
export const URL_REFUSAL_CODES = WEBHOOK_URL_REFUSAL_CODES;

export type UrlRefusalCode = (typeof WEBHOOK_URL_REFUSAL_CODES)[number];

/** A URL that passed, with the one address the delivery must connect to (never a second lookup). */
export interface CheckedTarget {
  /** WHATWG-normalised, the form to store and to send the request line for. */
  url: string;
  /** Without a trailing dot: the name for TLS (SNI, certificate check). */
  hostname: string;
  address: string;
  /** 443, or the pinned dev port. */
  port: number;
  pinned: boolean;
}

export type UrlCheck = { ok: true; target: CheckedTarget } | { ok: false; code: UrlRefusalCode; message: string };

const MAX_URL_LENGTH = WEBHOOKS.maxUrlLength;

/** Special-use and private-use names (RFC 6761, 6762, 7686, 8375, 9476 and common LAN habits) never reach a public host. */
const INTERNAL_SUFFIXES = ['local', 'localdomain', 'internal', 'home.arpa', 'arpa', 'test', 'invalid', 'example', 'onion', 'lan', 'intranet', 'corp'];

const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;

const refuse = (code: UrlRefusalCode, message: string): UrlCheck => ({ ok: false, code, message });

/** Long hostile input stays out of messages and logs. */
const shortened = (text: string) => (text.length > 80 ? `${text.slice(0, 77)}...` : text);

function hostNameProblem(name: string): string | null {
  if (name === 'localhost' || name.endsWith('.localhost')) return 'is a loopback name';
  if (!name.includes('.')) return 'is not a fully qualified domain name';
  if (name.length > 253 || !name.split('.').every((label) => LABEL.test(label))) return 'is not a valid DNS name';
  const suffix = INTERNAL_SUFFIXES.find((candidate) => name === candidate || name.endsWith(`.${candidate}`));
  return suffix ? `is under .${suffix}, which is not on the public Internet` : null;
}

/**
 * Decides whether the platform may send a webhook to a URL (architecture section 6, SSRF). Called at
 * registration and again before every delivery, because what a name resolves to can change
 * between the two; the delivery then connects to `target.address` only.
 */
export class UrlSafety {
  private readonly resolver: HostResolver;
  private readonly devHosts: ReadonlyMap<string, DevHostPin>;

  constructor(options: { resolver: HostResolver; devHosts?: Map<string, DevHostPin> }) {
    this.resolver = options.resolver;
    this.devHosts = options.devHosts ?? new Map();
  }

  async check(rawUrl: string): Promise<UrlCheck> {
    if (typeof rawUrl !== 'string') return refuse('webhook_url_invalid_url', 'The URL must be a string');
    if (rawUrl.length > MAX_URL_LENGTH) return refuse('webhook_url_invalid_url', `The URL is longer than ${MAX_URL_LENGTH} characters`);
    let url: URL;
    try {
      url = new URL(rawUrl);
    } catch {
      return refuse('webhook_url_invalid_url', `${JSON.stringify(shortened(rawUrl))} is not a valid absolute URL`);
    }
    if (url.username || url.password)
      return refuse('webhook_url_invalid_url', 'The URL must not carry a user name or password; authenticate with the webhook signature');
    // `hash` is empty for a bare "#", but the href keeps it; any "#" left in the href starts the fragment.
    if (url.href.includes('#')) return refuse('webhook_url_invalid_url', 'The URL must not have a fragment (#…)');
    if (url.href.length > MAX_URL_LENGTH) return refuse('webhook_url_invalid_url', `The URL is longer than ${MAX_URL_LENGTH} characters once normalised`);
    if (url.protocol !== 'https:') return refuse('webhook_url_https_required', `The URL must use https, not ${url.protocol.slice(0, -1)}`);
    // The parser drops an explicit :443, so any port left is another one.
    if (url.port !== '') return refuse('webhook_url_port_not_allowed', `The URL must use port 443, not ${url.port}`);

    const host = url.hostname;
    // The parser has already turned decimal, octal, hex and short IPv4 forms into dotted quads.
    const literal = host.startsWith('[') ? host.slice(1, -1) : isIPv4(host) ? host : null;
    if (literal !== null) {
      const reason = blockedAddressReason(literal);
      if (reason) return refuse('webhook_url_blocked_address', `${literal} is not a public address (${reason})`);
      return refuse('webhook_url_blocked_host', `${literal} is an IP address; use a fully qualified DNS name`);
    }

    const name = host.endsWith('.') ? host.slice(0, -1) : host;
    const pin = this.devHosts.get(name);
    if (pin) return { ok: true, target: { url: url.href, hostname: name, address: pin.address, port: pin.port, pinned: true } };
    const problem = hostNameProblem(name);
    if (problem) return refuse('webhook_url_blocked_host', `${shortened(name)} ${problem}`);

    let addresses: string[];
    try {
      addresses = await this.resolver.resolve(name);
    } catch (error) {
      return refuse('webhook_url_dns_failed', `${name} cannot be resolved right now (${(error as NodeJS.ErrnoException)?.code ?? 'DNS error'})`);
    }
    if (!addresses.length) return refuse('webhook_url_dns_failed', `${name} has no A or AAAA record`);
    for (const address of addresses) {
      const reason = blockedAddressReason(address);
      // Neither the address nor its kind: a caller could map a split-horizon DNS's private answers.
      if (reason) return refuse('webhook_url_blocked_address', `${name} resolves to an address that is not public`);
    }
    const address = addresses.find((candidate) => isIPv4(candidate)) ?? addresses[0];
    return { ok: true, target: { url: url.href, hostname: name, address, port: 443, pinned: false } };
  }
}
