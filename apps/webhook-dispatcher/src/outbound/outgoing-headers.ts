/** One request header as it went out: the name as spelled, the value as sent. */
export interface SentHeader {
  name: string;
  value: string;
}

/** Header names are case-insensitive: a later value replaces an earlier one of the same name, keeping the later spelling. */
export function mergeHeaders(first: Record<string, string>, then: Record<string, string>): Record<string, string> {
  const byName = new Map<string, [string, string]>();
  for (const [name, value] of [...Object.entries(first), ...Object.entries(then)]) byName.set(name.toLowerCase(), [name, value]);
  return Object.fromEntries(byName.values());
}

/**
 * Every header of one outgoing request, the single source of what is sent and what the delivery log
 * shows: the caller's `defaults`, then its `headers`, then what the client itself fixes (Host is
 * the target's name without the port; Content-Length the body's bytes; Connection keep-alive, which
 * Node's pooling agent would otherwise add unseen).
 */
export function outgoingHeaders(args: {
  defaults: Record<string, string>;
  headers: Record<string, string>;
  body?: Buffer;
  hostname: string;
}): Record<string, string> {
  return mergeHeaders(mergeHeaders(args.defaults, args.headers), {
    ...(args.body ? { 'Content-Length': String(args.body.length) } : {}),
    Host: args.hostname,
    Connection: 'keep-alive',
  });
}

/** The headers in the order they were written, for the log. */
export function sentHeaders(headers: Record<string, string>): SentHeader[] {
  return Object.entries(headers).map(([name, value]) => ({ name, value }));
}
