import { verifiedSecrets } from '@platform/testing';
import Stripe from 'stripe';
import { newWebhookSecret, signatureHeader } from './webhook-signature';

/**
 * The vector was computed outside Node, with the OpenSSL CLI:
 *   printf '%s' "1700000000.$BODY" | openssl dgst -sha256 -hmac 'whsec_1234567890abcdefghijklmnopqrstuv'
 * keyed with the secret string as is (`whsec_` included, not base64-decoded), over the UTF-8 body.
 */
const T = 1_700_000_000;
const BODY = '{"id":"evt_0123456789","type":"webhook.test","data":{"nonce":"héllo"}}';
const SECRET_OLD = 'whsec_1234567890abcdefghijklmnopqrstuv';
const SECRET_NEW = 'whsec_ZYXWVUTSRQPONMLKJIHGFEDCBA987654';
const V1_OLD = '999b62309b7795004385fca961a676ba6fbfdb68fc344c4ef7c49e0b3ddc7616';
const V1_NEW = 'b9066fd47cfc72992ddabc0507fdf07fe141882fb9f421e9b0b984cf7cb52937';

/** Stripe's own verifier: an instance is only a holder for `webhooks`; nothing here talks to Stripe. */
const stripe = new Stripe('sk_test_not_used');

/** Stripe's check with the receiver's clock set to `receivedAtSeconds` (constructEvent's 6th argument). */
function stripeAccepts(payload: string | Buffer, header: string, secret: string, receivedAtSeconds = T + 10): boolean {
  try {
    stripe.webhooks.constructEvent(payload, header, secret, 300, undefined, receivedAtSeconds * 1000);
    return true;
  } catch (error) {
    if (error instanceof Stripe.errors.StripeSignatureVerificationError) return false;
    throw error;
  }
}

/**
 * A receiver written from the API spec alone (libs/testing's verifiedSecrets, which the e2e tests
 * use too): hash the raw bytes, compare in constant time, accept any v1 that matches, and reject a t
 * more than 5 minutes from its clock.
 */
function specReceiverAccepts(rawBody: Buffer, header: string, secret: string, nowSeconds = T + 10): boolean {
  const { t, matched } = verifiedSecrets(header, rawBody, [secret]);
  return Math.abs(nowSeconds - t) <= 300 && matched.length === 1;
}

function tampered(body: string): Buffer {
  const bytes = Buffer.from(body, 'utf8');
  bytes[bytes.indexOf('0'.charCodeAt(0))] = '1'.charCodeAt(0);
  return bytes;
}

describe('signatureHeader', () => {
  it('matches the fixed vector', () => {
    expect(signatureHeader([SECRET_OLD], T, BODY)).toBe(`t=${T},v1=${V1_OLD}`);
  });

  it('hashes the same bytes whether the body is given as a string or a Buffer', () => {
    expect(signatureHeader([SECRET_OLD], T, Buffer.from(BODY, 'utf8'))).toBe(signatureHeader([SECRET_OLD], T, BODY));
  });

  it('gives one v1 per secret, in the order given, with no spaces', () => {
    const header = signatureHeader([SECRET_NEW, SECRET_OLD], T, BODY);
    expect(header).toBe(`t=${T},v1=${V1_NEW},v1=${V1_OLD}`);
    expect(header).toMatch(/^t=\d+(,v1=[0-9a-f]{64}){2}$/);
  });

  it('signs each timestamp afresh', () => {
    expect(signatureHeader([SECRET_OLD], T + 1, BODY)).not.toContain(V1_OLD);
  });

  it('refuses no secrets and a timestamp that is not whole seconds', () => {
    expect(() => signatureHeader([], T, BODY)).toThrow(/at least one secret/);
    expect(() => signatureHeader([SECRET_OLD], T + 0.5, BODY)).toThrow(/whole/);
    expect(() => signatureHeader([SECRET_OLD], -1, BODY)).toThrow(/whole/);
    expect(() => signatureHeader([SECRET_OLD], Number.NaN, BODY)).toThrow(/whole/);
  });
});

describe.each([
  ['stripe.webhooks.constructEvent', stripeAccepts],
  ['a receiver written from the spec', (body: string | Buffer, header: string, secret: string, at?: number) => specReceiverAccepts(Buffer.from(body), header, secret, at)],
])('verified by %s', (_name, accepts) => {
  const header = signatureHeader([SECRET_NEW, SECRET_OLD], T, BODY);

  it('accepts the header with either secret during rotation', () => {
    expect(accepts(BODY, header, SECRET_NEW)).toBe(true);
    expect(accepts(BODY, header, SECRET_OLD)).toBe(true);
    expect(accepts(Buffer.from(BODY, 'utf8'), header, SECRET_OLD)).toBe(true);
  });

  it('accepts a single-secret header', () => {
    expect(accepts(BODY, signatureHeader([SECRET_OLD], T, BODY), SECRET_OLD)).toBe(true);
  });

  it('rejects a tampered body', () => {
    expect(accepts(tampered(BODY), header, SECRET_NEW)).toBe(false);
    expect(accepts(tampered(BODY), header, SECRET_OLD)).toBe(false);
  });

  it('rejects a secret that signed nothing, and the secret without its whsec_ prefix', () => {
    expect(accepts(BODY, header, newWebhookSecret())).toBe(false);
    expect(accepts(BODY, header, SECRET_OLD.slice('whsec_'.length))).toBe(false);
  });

  it('rejects a timestamp more than 5 minutes old', () => {
    expect(accepts(BODY, header, SECRET_OLD, T + 301)).toBe(false);
  });
});

describe('newWebhookSecret', () => {
  it('is whsec_ and 32 base62 characters, different every time', () => {
    const secrets = Array.from({ length: 50 }, () => newWebhookSecret());
    for (const secret of secrets) expect(secret).toMatch(/^whsec_[0-9A-Za-z]{32}$/);
    expect(new Set(secrets).size).toBe(secrets.length);
  });

  it('signs headers that Stripe verifies', () => {
    const secret = newWebhookSecret();
    expect(stripeAccepts(BODY, signatureHeader([secret], T, BODY), secret)).toBe(true);
  });
});
