import { verifiedSecrets } from '#platform/testing';
import Stripe from 'stripe';
import { Webhook } from 'standardwebhooks';
import { newWebhookSecret, signatureHeader, standardWebhookSignature } from './webhook-signature';

// The wire format's own vectors and both libraries' checks are in libs/contracts (webhook-signing.spec.ts).
const T = 1_700_000_000;
const BODY = '{"id":"evt_0123456789","type":"webhook.test","data":{"nonce":"héllo"}}';
const SECRET_OLD = 'whsec_1234567890abcdefghijklmnopqrstuv';
const SECRET_NEW = 'whsec_ZYXWVUTSRQPONMLKJIHGFEDCBA987654';

/** Stripe's own verifier: an instance is only a holder for `webhooks`; nothing here talks to Stripe. */
const stripe = new Stripe('sk_test_not_used');

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

describe('Svc-Signature verified by a receiver written from the spec', () => {
  const header = signatureHeader([SECRET_NEW, SECRET_OLD], T, BODY);
  const body = Buffer.from(BODY, 'utf8');

  it('accepts the header with either secret during rotation, and a single-secret header', () => {
    expect(specReceiverAccepts(body, header, SECRET_NEW)).toBe(true);
    expect(specReceiverAccepts(body, header, SECRET_OLD)).toBe(true);
    expect(specReceiverAccepts(body, signatureHeader([SECRET_OLD], T, BODY), SECRET_OLD)).toBe(true);
  });

  it('rejects a tampered body', () => {
    expect(specReceiverAccepts(tampered(BODY), header, SECRET_NEW)).toBe(false);
    expect(specReceiverAccepts(tampered(BODY), header, SECRET_OLD)).toBe(false);
  });

  it('rejects a secret that signed nothing, and the secret without its whsec_ prefix', () => {
    expect(specReceiverAccepts(body, header, newWebhookSecret())).toBe(false);
    expect(specReceiverAccepts(body, header, SECRET_OLD.slice('whsec_'.length))).toBe(false);
  });

  it('rejects a timestamp more than 5 minutes old', () => {
    expect(specReceiverAccepts(body, header, SECRET_OLD, T + 301)).toBe(false);
  });
});

describe('newWebhookSecret', () => {
  it('is whsec_ and 32 base62 characters, different every time', () => {
    const secrets = Array.from({ length: 50 }, () => newWebhookSecret());
    for (const secret of secrets) expect(secret).toMatch(/^whsec_[0-9A-Za-z]{32}$/);
    expect(new Set(secrets).size).toBe(secrets.length);
  });

  it('is, after whsec_, the canonical base64 of a 24-byte Standard Webhooks key', () => {
    for (let i = 0; i < 50; i++) {
      const encoded = newWebhookSecret().slice('whsec_'.length);
      const key = Buffer.from(encoded, 'base64');
      expect(key).toHaveLength(24);
      expect(key.toString('base64')).toBe(encoded);
    }
  });

  it('signs headers that Stripe and the standardwebhooks library verify', () => {
    const secret = newWebhookSecret();
    expect(() => stripe.webhooks.constructEvent(BODY, signatureHeader([secret], T, BODY), secret, 300, undefined, (T + 10) * 1000)).not.toThrow();
    const headers = {
      'webhook-id': 'evt_0123456789',
      'webhook-timestamp': String(T),
      'webhook-signature': standardWebhookSignature([secret], 'evt_0123456789', T, BODY),
    };
    const now = jest.spyOn(Date, 'now').mockReturnValue((T + 10) * 1000);
    try {
      expect(new Webhook(secret).verify(BODY, headers)).toEqual(JSON.parse(BODY));
    } finally {
      now.mockRestore();
    }
  });
});
