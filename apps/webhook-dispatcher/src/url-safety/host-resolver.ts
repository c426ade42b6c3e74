import { promises as dns } from 'node:dns';

/** Every address a name has, so the caller can refuse the name when any one of them is private. */
export interface HostResolver {
  /** All A and AAAA addresses; `[]` when the name does not exist or has none; throws when DNS cannot say. */
  resolve(hostname: string): Promise<string[]>;
}

/** The name or its records do not exist: an answer, not a failure. */
const ABSENT = new Set<string>([dns.NOTFOUND, dns.NODATA]);

function orNothing(lookup: Promise<string[]>): Promise<string[]> {
  return lookup.catch((error: NodeJS.ErrnoException) => {
    if (error.code && ABSENT.has(error.code)) return [];
    throw error;
  });
}

/**
 * Asks DNS servers directly (c-ares), never getaddrinfo: /etc/hosts, search domains and nsswitch
 * would otherwise let the machine's own configuration decide where a business's URL points, and
 * would differ between the check and the delivery hosts.
 */
export function dnsHostResolver(options: { servers?: string[] | null; timeoutMs?: number } = {}): HostResolver {
  const timeout = options.timeoutMs ?? 2000;
  // maxTimeout stops c-ares doubling the wait on the retry, so a dead server costs about 2 × timeout.
  const resolver = new dns.Resolver({ timeout, tries: 2, maxTimeout: timeout });
  if (options.servers?.length) resolver.setServers(options.servers);
  return {
    async resolve(hostname: string): Promise<string[]> {
      // Fully qualified, so no resolver option can append a search domain.
      const name = hostname.endsWith('.') ? hostname : `${hostname}.`;
      const [v4, v6] = await Promise.all([orNothing(resolver.resolve4(name)), orNothing(resolver.resolve6(name))]);
      return [...v4, ...v6];
    },
  };
}
