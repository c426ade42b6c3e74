import { createHmac, createSecretKey, timingSafeEqual } from 'node:crypto';
import type { WebhookEvent } from './api-types';

/** Request headers as a Fetch `Headers` or a plain object (Node's `req.headers`, any case). */
export type HeadersInput = { get(name: string): string | null } | Record<string, string | string[] | undefined>;

/** Options of `verifyWebhook`. */
export interface VerifyWebhookOptions {
  /** Largest accepted distance between the signature's time and now, either way. Default 300 (5 minutes). */
  toleranceSeconds?: number;
  /** The receiver's clock: a Date or epoch milliseconds. Default now. */
  now?: Date | number;
}

/** Why a delivery was refused. */
export type WebhookVerificationFailure = 'missing_signature' | 'malformed_signature' | 'signature_mismatch' | 'timestamp_out_of_tolerance' | 'invalid_payload';

/** The delivery is not provably from the platform (or is too old or too new): answer 400 and drop it. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  constructor(
    /** A stable reason, for logs and metrics. */
    readonly reason: WebhookVerificationFailure,
    message: string,
  ) {
    super(message);
  }
}

const DEFAULT_TOLERANCE_SECONDS = 300;
const HEX_SHA256 = /^[0-9a-f]{64}$/;

/**
 * Verifies a webhook delivery and answers its event.
 *
 * Checks `Svc-Signature: t=<unix>,v1=<hex>[,v1=<hex>]`: each v1 is the lowercase hex HMAC-SHA256 of
 * `<t>.` + the raw body bytes, keyed with the secret's UTF-8 bytes (`whsec_` included). A match of
 * any v1 with any of `secretOrSecrets` counts (during a rotation pass both secrets, or rely on the
 * two v1 values the platform sends). Without `Svc-Signature`, the Standard Webhooks headers
 * (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64>`) are checked instead, keyed
 * with the base64 decoding of the secret after `whsec_`. Comparisons are constant-time; a timestamp
 * more than `toleranceSeconds` from now (either way) is refused, which stops replays.
 *
 * `rawBody` must be the bytes as received: a body parsed and re-serialized will not verify.
 *
 * @throws WebhookVerificationError when anything does not check out.
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: HeadersInput,
  secretOrSecrets: string | string[],
  options: VerifyWebhookOptions = {},
): WebhookEvent {
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength);
  const secrets = (Array.isArray(secretOrSecrets) ? secretOrSecrets : [secretOrSecrets]).filter((secret) => typeof secret === 'string' && secret.length > 0);
  if (secrets.length === 0) throw new TypeError('verifyWebhook: at least one signing secret is required');
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const nowMs = options.now === undefined ? Date.now() : typeof options.now === 'number' ? options.now : options.now.getTime();

  const svcSignature = headerValue(headers, 'svc-signature');
  const standardSignature = headerValue(headers, 'webhook-signature');
  let timestamp: number;
  if (svcSignature !== null) {
    timestamp = verifySvcSignature(svcSignature, body, secrets);
  } else if (standardSignature !== null) {
    timestamp = verifyStandardSignature(standardSignature, headerValue(headers, 'webhook-id'), headerValue(headers, 'webhook-timestamp'), body, secrets);
  } else {
    throw new WebhookVerificationError('missing_signature', 'no Svc-Signature (or webhook-signature) header');
  }

  const ageSeconds = nowMs / 1000 - timestamp;
  if (ageSeconds > tolerance)
    throw new WebhookVerificationError('timestamp_out_of_tolerance', `signature timestamp is ${Math.round(ageSeconds)} s old (tolerance ${tolerance} s)`);
  if (-ageSeconds > tolerance)
    throw new WebhookVerificationError(
      'timestamp_out_of_tolerance',
      `signature timestamp is ${Math.round(-ageSeconds)} s in the future (tolerance ${tolerance} s)`,
    );

  try {
    return JSON.parse(body.toString('utf8')) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('invalid_payload', 'the signed body is not JSON');
  }
}

/** Checks `t=...,v1=...`; answers t. */
function verifySvcSignature(header: string, body: Buffer, secrets: string[]): number {
  const timestamps: string[] = [];
  const signatures: Buffer[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') timestamps.push(value);
    // Other schemes (v0, future ones) are ignored, as Stripe does, so a new scheme never breaks old receivers.
    else if (key === 'v1' && HEX_SHA256.test(value)) signatures.push(Buffer.from(value, 'hex'));
  }
  if (timestamps.length !== 1 || !/^\d{1,12}$/.test(timestamps[0]))
    throw new WebhookVerificationError('malformed_signature', 'Svc-Signature needs exactly one numeric t');
  if (signatures.length === 0) throw new WebhookVerificationError('malformed_signature', 'Svc-Signature has no v1 signature');
  const t = timestamps[0];
  const matched = secrets.some((secret) => {
    // The secret's UTF-8 bytes; a string key, since a Buffer key costs several times the HMAC on Node 24.
    const expected = createHmac('sha256', secret).update(`${t}.`).update(body).digest();
    return anyEqual(signatures, expected);
  });
  if (!matched) throw new WebhookVerificationError('signature_mismatch', 'no v1 signature matches the secret(s) and body');
  return Number(t);
}

/** Checks the Standard Webhooks headers; answers webhook-timestamp. */
function verifyStandardSignature(header: string, messageId: string | null, timestamp: string | null, body: Buffer, secrets: string[]): number {
  if (!messageId || !timestamp || !/^\d{1,12}$/.test(timestamp))
    throw new WebhookVerificationError('malformed_signature', 'webhook-signature needs webhook-id and a numeric webhook-timestamp');
  const signatures = header
    .split(' ')
    .map((entry) => entry.split(','))
    .filter(([version, value]) => version === 'v1' && value !== undefined && /^[A-Za-z0-9+/]+={0,2}$/.test(value))
    .map(([, value]) => Buffer.from(value, 'base64'));
  if (signatures.length === 0) throw new WebhookVerificationError('malformed_signature', 'webhook-signature has no v1 signature');
  const matched = secrets.some((secret) => {
    const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
    const expected = createHmac('sha256', createSecretKey(key)).update(`${messageId}.${timestamp}.`).update(body).digest();
    return anyEqual(signatures, expected);
  });
  if (!matched) throw new WebhookVerificationError('signature_mismatch', 'no v1 signature matches the secret(s) and body');
  return Number(timestamp);
}

/** Constant-time per candidate; every candidate is compared, so timing does not tell which matched. */
function anyEqual(candidates: Buffer[], expected: Buffer): boolean {
  let found = false;
  for (const candidate of candidates) if (candidate.length === expected.length && timingSafeEqual(candidate, expected)) found = true;
  return found;
}

/** A header's value from either shape, case-insensitively; repeated values joined as Node does. */
export function headerValue(headers: HeadersInput, name: string): string | null {
  if (typeof (headers as { get?: unknown }).get === 'function') return (headers as { get(name: string): string | null }).get(name);
  for (const [key, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (key.toLowerCase() !== name || value === undefined) continue;
    return Array.isArray(value) ? value.join(', ') : value;
  }
  return null;
}
