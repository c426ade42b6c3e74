/**
 * Secrets never cross Kafka in plaintext: the fields below are sealed by the side that sends them
 * and opened by the side that reads them, with the key ring the gateway, the console and the webhook
 * dispatcher share (SECRETS_KEYS). Names are fixed here rather than per call so no new operation can forget one.
 */
export const SEALED_REQUEST_FIELDS = ['verifyToken'] as const;
/** `secret`: a webhook signing secret; `key`: an API key just created. */
export const SEALED_REPLY_FIELDS = ['secret', 'key'] as const;

/** What the RPC layer needs of a key ring (SecretKeyRing in @platform/service-kit). */
export interface RpcFieldSealer {
  seal(plaintext: string, context: string): string;
  open(sealed: string, context: string): string;
}

type Direction = 'request' | 'reply';

/** The AAD of a sealed field: a request's token cannot be replayed as a reply's secret, or the other way. */
function contextOf(direction: Direction, field: string): string {
  return `rpc.${direction}.${field}`;
}

function transform(value: unknown, direction: Direction, fields: readonly string[], apply: (text: string, context: string) => string): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  let copy: Record<string, unknown> | null = null;
  for (const field of fields) {
    const text = (value as Record<string, unknown>)[field];
    if (typeof text !== 'string') continue;
    copy ??= { ...(value as Record<string, unknown>) };
    copy[field] = apply(text, contextOf(direction, field));
  }
  return copy ?? value;
}

export function sealFields(value: unknown, direction: Direction, sealer: RpcFieldSealer): unknown {
  return transform(value, direction, direction === 'request' ? SEALED_REQUEST_FIELDS : SEALED_REPLY_FIELDS, (t, c) => sealer.seal(t, c));
}

export function openFields(value: unknown, direction: Direction, sealer: RpcFieldSealer): unknown {
  return transform(value, direction, direction === 'request' ? SEALED_REQUEST_FIELDS : SEALED_REPLY_FIELDS, (t, c) => sealer.open(t, c));
}
