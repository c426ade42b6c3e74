import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import Stripe from 'stripe';
import { signatureHeader, standardWebhookSignature, WEBHOOK_SECRET_PREFIX, webhookDeliveryHeaders } from './webhook-signing';

/**
 * The vectors were computed outside Node, with the OpenSSL CLI, over the UTF-8 body:
 *   Svc-Signature v1 (keyed with the secret string as is, `whsec_` included, not decoded):
 *     printf '%s' "1700000000.$BODY" | openssl dgst -sha256 -hmac 'whsec_1234567890abcdefghijklmnopqrstuv'
 *   webhook-signature v1 (keyed with the base64 decoding of the secret after `whsec_`):
 *     K=$(printf '%s' 1234567890abcdefghijklmnopqrstuv | base64 -d | od -An -tx1 | tr -d ' \n')
 *     printf '%s' "evt_0123456789.1700000000.$BODY" | openssl dgst -sha256 -mac HMAC -macopt hexkey:$K -binary | base64
 */
const T = 1_700_000_000;
const EVENT_ID = 'evt_0123456789';
const BODY = '{"id":"evt_0123456789","type":"webhook.test","data":{"nonce":"héllo"}}';
const SECRET_OLD = 'whsec_1234567890abcdefghijklmnopqrstuv';
const SECRET_NEW = 'whsec_ZYXWVUTSRQPONMLKJIHGFEDCBA987654';
const V1_OLD = '999b62309b7795004385fca961a676ba6fbfdb68fc344c4ef7c49e0b3ddc7616';
const V1_NEW = 'b9066fd47cfc72992ddabc0507fdf07fe141882fb9f421e9b0b984cf7cb52937';
const STD_OLD = 'v1,5+HNYwqAXrLBI9FSyiLZmugMGVy1A6GASOKd9MiNn7Q=';
const STD_NEW = 'v1,T585Q8ud4iiYVtu5UmdT3MAa+h1J+7AVDRc2ZMu5tFk=';

/** Stripe's own verifier: an instance is only a holder for `webhooks`; nothing here talks to Stripe. */
const stripe = new Stripe('sk_test_not_used');

/** Stripe's check with the receiver's clock at `receivedAtSeconds` (constructEvent's 6th argument). */
function stripeAccepts(payload: string | Buffer, headers: Record<string, string>, secret: string, receivedAtSeconds = T + 10): boolean {
  try {
    stripe.webhooks.constructEvent(payload, headers['Svc-Signature'], secret, 300, undefined, receivedAtSeconds * 1000);
    return true;
  } catch (error) {
    if (error instanceof Stripe.errors.StripeSignatureVerificationError) return false;
    throw error;
  }
}

/** The standardwebhooks library's check with the receiver's clock at `nowSeconds` (it reads Date.now and takes no time argument). */
function standardWebhooksAccepts(payload: string | Buffer, headers: Record<string, string>, secret: string, nowSeconds = T + 10): boolean {
  const now = jest.spyOn(Date, 'now').mockReturnValue(nowSeconds * 1000);
  try {
    new Webhook(secret).verify(payload, headers);
    return true;
  } catch (error) {
    if (error instanceof WebhookVerificationError) return false;
    throw error;
  } finally {
    now.mockRestore();
  }
}

function tampered(body: string): Buffer {
  const bytes = Buffer.from(body, 'utf8');
  bytes[bytes.indexOf('0'.charCodeAt(0))] = '1'.charCodeAt(0);
  return bytes;
}

function headersFor(secrets: string[], timestampSeconds = T, body: string | Buffer = BODY): Record<string, string> {
  return webhookDeliveryHeaders({ secrets, timestampSeconds, body, eventId: EVENT_ID, eventType: 'webhook.test', deliveryId: 'wd_0123456789', attempt: 3 });
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

describe('standardWebhookSignature', () => {
  it('matches the fixed vectors', () => {
    expect(standardWebhookSignature([SECRET_OLD], EVENT_ID, T, BODY)).toBe(STD_OLD);
    expect(standardWebhookSignature([SECRET_NEW], EVENT_ID, T, BODY)).toBe(STD_NEW);
  });

  it('is what the standardwebhooks library itself signs', () => {
    expect(standardWebhookSignature([SECRET_OLD], EVENT_ID, T, BODY)).toBe(new Webhook(SECRET_OLD).sign(EVENT_ID, new Date(T * 1000), BODY));
  });

  it('hashes the same bytes whether the body is given as a string or a Buffer', () => {
    expect(standardWebhookSignature([SECRET_OLD], EVENT_ID, T, Buffer.from(BODY, 'utf8'))).toBe(STD_OLD);
  });

  it('gives one value per secret, in the order given, separated by a space', () => {
    expect(standardWebhookSignature([SECRET_NEW, SECRET_OLD], EVENT_ID, T, BODY)).toBe(`${STD_NEW} ${STD_OLD}`);
  });

  it('signs the event id and the timestamp', () => {
    expect(standardWebhookSignature([SECRET_OLD], 'evt_0123456780', T, BODY)).not.toBe(STD_OLD);
    expect(standardWebhookSignature([SECRET_OLD], EVENT_ID, T + 1, BODY)).not.toBe(STD_OLD);
  });

  it('refuses no secrets, a bad timestamp, a bad event id, and a secret that is not canonical base64 after whsec_', () => {
    expect(() => standardWebhookSignature([], EVENT_ID, T, BODY)).toThrow(/at least one secret/);
    expect(() => standardWebhookSignature([SECRET_OLD], EVENT_ID, T + 0.5, BODY)).toThrow(/whole/);
    expect(() => standardWebhookSignature([SECRET_OLD], '', T, BODY)).toThrow(/event id/);
    expect(() => standardWebhookSignature([SECRET_OLD], 'evt 1', T, BODY)).toThrow(/event id/);
    for (const secret of ['whsec_', 'whsec_abc', 'whsec_ab!d', 'whsec_abd=']) {
      expect(() => standardWebhookSignature([secret], EVENT_ID, T, BODY)).toThrow(/canonical base64/);
    }
  });

  it('keys with 24 bytes for a base62 secret of 32 characters', () => {
    const base62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
    const secret = WEBHOOK_SECRET_PREFIX + Array.from({ length: 32 }, (_, i) => base62[(i * 7) % 62]).join('');
    expect(Buffer.from(secret.slice(WEBHOOK_SECRET_PREFIX.length), 'base64')).toHaveLength(24);
    expect(standardWebhookSignature([secret], EVENT_ID, T, BODY)).toBe(new Webhook(secret).sign(EVENT_ID, new Date(T * 1000), BODY));
  });
});

describe('webhookDeliveryHeaders', () => {
  it('gives every signed header of a delivery, both schemes at the same timestamp', () => {
    expect(headersFor([SECRET_NEW, SECRET_OLD])).toEqual({
      'Svc-Signature': `t=${T},v1=${V1_NEW},v1=${V1_OLD}`,
      'Svc-Event-Id': EVENT_ID,
      'Svc-Event-Type': 'webhook.test',
      'Svc-Delivery-Id': 'wd_0123456789',
      'Svc-Delivery-Attempt': '3',
      'webhook-id': EVENT_ID,
      'webhook-timestamp': String(T),
      'webhook-signature': `${STD_NEW} ${STD_OLD}`,
    });
  });
});

describe.each([
  ['stripe.webhooks.constructEvent', stripeAccepts],
  ['the standardwebhooks library', standardWebhooksAccepts],
])('delivery headers verified by %s', (_name, accepts) => {
  const rotation = headersFor([SECRET_NEW, SECRET_OLD]);

  it('accepts a single-secret delivery', () => {
    expect(accepts(BODY, headersFor([SECRET_OLD]), SECRET_OLD)).toBe(true);
    expect(accepts(Buffer.from(BODY, 'utf8'), headersFor([SECRET_OLD]), SECRET_OLD)).toBe(true);
  });

  it('accepts a rotation delivery with either secret alone', () => {
    expect(accepts(BODY, rotation, SECRET_NEW)).toBe(true);
    expect(accepts(BODY, rotation, SECRET_OLD)).toBe(true);
  });

  it('rejects a tampered body', () => {
    expect(accepts(tampered(BODY), rotation, SECRET_NEW)).toBe(false);
    expect(accepts(tampered(BODY), rotation, SECRET_OLD)).toBe(false);
  });

  it('rejects a secret that signed nothing', () => {
    expect(accepts(BODY, rotation, 'whsec_' + Buffer.alloc(24, 7).toString('base64'))).toBe(false);
  });

  it('rejects a timestamp more than 5 minutes old', () => {
    expect(accepts(BODY, rotation, SECRET_OLD, T + 300)).toBe(true);
    expect(accepts(BODY, rotation, SECRET_OLD, T + 301)).toBe(false);
  });
});

describe('delivery headers verified by the standardwebhooks library', () => {
  // Stripe's check bounds only the age; Standard Webhooks also refuses a timestamp from the future.
  it('rejects a timestamp more than 5 minutes ahead of the receiver', () => {
    expect(standardWebhooksAccepts(BODY, headersFor([SECRET_OLD]), SECRET_OLD, T - 300)).toBe(true);
    expect(standardWebhooksAccepts(BODY, headersFor([SECRET_OLD]), SECRET_OLD, T - 301)).toBe(false);
  });

  it('rejects a delivery whose webhook-id was changed', () => {
    expect(standardWebhooksAccepts(BODY, { ...headersFor([SECRET_OLD]), 'webhook-id': 'evt_0123456780' }, SECRET_OLD)).toBe(false);
  });
});
