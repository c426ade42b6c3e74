import Stripe from 'stripe';
import { Webhook } from 'standardwebhooks';
import type { WebhookEvent } from './api-types';
import { verifyWebhook, WebhookVerificationError, type WebhookVerificationFailure } from './webhook-signature';

// Signatures here come from Stripe's and the Standard Webhooks reference libraries, never from the
// code under test, so both sides of the check are independent.
const stripe = new Stripe('sk_test_unused');
const SECRET = 'whsec_0123456789ABCDEFGHIJabcdefghij';
const NEW_SECRET = 'whsec_KLMNOPQRSTUVWXYZklmnopqrstuvwxyz';
const T = 1_790_000_000;
const AT_T = T * 1000;
const EVENT = {
  id: 'evt_01JTESTEVENT0000000000000',
  type: 'webhook.test',
  apiVersion: '2026-10-01',
  created: T,
  appId: 'app_1',
  data: { message: 'Test event — ünïcode', subscriptionId: 'we_1', nonce: 'n1' },
};
const BODY = JSON.stringify(EVENT);

const svcHeader = (secret: string, timestamp = T, payload = BODY) => stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp });
const v1Of = (header: string) => header.split(',').find((part) => part.startsWith('v1='))!;

function failure(run: () => unknown): WebhookVerificationFailure {
  try {
    run();
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.reason;
    throw error;
  }
  throw new Error('expected a WebhookVerificationError');
}

describe('verifyWebhook with Svc-Signature', () => {
  it('accepts a valid signature and answers the typed event', () => {
    const event = verifyWebhook(BODY, { 'svc-signature': svcHeader(SECRET) }, SECRET, { now: AT_T });
    expect(event).toEqual(EVENT);
    // Narrowing on type gives the event's own data.
    const nonce = (e: WebhookEvent) => (e.type === 'webhook.test' ? e.data.nonce : null);
    expect(nonce(event)).toBe('n1');
  });

  it('takes the body as a string, Buffer or Uint8Array, and headers in any case or as Headers', () => {
    const header = svcHeader(SECRET);
    const bytes = Buffer.from(BODY, 'utf8');
    expect(verifyWebhook(bytes, { 'Svc-Signature': header }, SECRET, { now: AT_T })).toEqual(EVENT);
    expect(verifyWebhook(new Uint8Array(bytes), new Headers({ 'SVC-SIGNATURE': header }), SECRET, { now: new Date(AT_T) })).toEqual(EVENT);
    // A view into a larger buffer (what body parsers hand over) is read at its own offset.
    const pooled = Buffer.concat([Buffer.from('xxxx'), bytes]).subarray(4);
    expect(verifyWebhook(pooled, { 'svc-signature': header }, SECRET, { now: AT_T })).toEqual(EVENT);
  });

  it('refuses a tampered body and a wrong secret', () => {
    const header = svcHeader(SECRET);
    expect(failure(() => verifyWebhook(BODY.replace('n1', 'n2'), { 'svc-signature': header }, SECRET, { now: AT_T }))).toBe('signature_mismatch');
    expect(failure(() => verifyWebhook(`${BODY} `, { 'svc-signature': header }, SECRET, { now: AT_T }))).toBe('signature_mismatch');
    expect(failure(() => verifyWebhook(BODY, { 'svc-signature': header }, NEW_SECRET, { now: AT_T }))).toBe('signature_mismatch');
    // A signature over a different t does not carry over.
    expect(failure(() => verifyWebhook(BODY, { 'svc-signature': `t=${T + 1},${v1Of(header)}` }, SECRET, { now: AT_T }))).toBe('signature_mismatch');
  });

  it('during rotation accepts a match of either v1 with either secret, as Stripe does', () => {
    const rotated = `t=${T},${v1Of(svcHeader(SECRET))},${v1Of(svcHeader(NEW_SECRET))}`;
    for (const secrets of [SECRET, NEW_SECRET, [SECRET, NEW_SECRET], ['whsec_unrelated', NEW_SECRET]]) {
      expect(verifyWebhook(BODY, { 'svc-signature': rotated }, secrets, { now: AT_T })).toEqual(EVENT);
    }
    // Stripe's receivedAt (6th argument) is in milliseconds.
    for (const secret of [SECRET, NEW_SECRET]) expect(stripe.webhooks.constructEvent(BODY, rotated, secret, 300, undefined, AT_T)).toEqual(EVENT);
    expect(failure(() => verifyWebhook(BODY, { 'svc-signature': rotated }, ['whsec_unrelated'], { now: AT_T }))).toBe('signature_mismatch');
    // One v1, the receiver holding both secrets while it switches over.
    expect(verifyWebhook(BODY, { 'svc-signature': svcHeader(NEW_SECRET) }, [SECRET, NEW_SECRET], { now: AT_T })).toEqual(EVENT);
  });

  it('finds the valid v1 among several, ignoring unknown schemes and junk', () => {
    const good = v1Of(svcHeader(SECRET));
    const header = `t=${T},v0=abc,v1=${'0'.repeat(64)},v1=not-hex,${good}`;
    expect(verifyWebhook(BODY, { 'svc-signature': header }, SECRET, { now: AT_T })).toEqual(EVENT);
  });

  it('accepts t exactly 300 s old or ahead, and refuses 301 s', () => {
    const headers = { 'svc-signature': svcHeader(SECRET) };
    expect(verifyWebhook(BODY, headers, SECRET, { now: AT_T + 300_000 })).toEqual(EVENT);
    expect(verifyWebhook(BODY, headers, SECRET, { now: AT_T - 300_000 })).toEqual(EVENT);
    expect(failure(() => verifyWebhook(BODY, headers, SECRET, { now: AT_T + 301_000 }))).toBe('timestamp_out_of_tolerance');
    expect(failure(() => verifyWebhook(BODY, headers, SECRET, { now: AT_T - 301_000 }))).toBe('timestamp_out_of_tolerance');
    // The same edge as Stripe's verifier on the past side (it does not bound the future).
    expect(stripe.webhooks.constructEvent(BODY, headers['svc-signature'], SECRET, 300, undefined, AT_T + 300_000)).toEqual(EVENT);
    expect(() => stripe.webhooks.constructEvent(BODY, headers['svc-signature'], SECRET, 300, undefined, AT_T + 301_000)).toThrow('tolerance');
    expect(verifyWebhook(BODY, headers, SECRET, { now: AT_T + 10_000, toleranceSeconds: 10 })).toEqual(EVENT);
    expect(failure(() => verifyWebhook(BODY, headers, SECRET, { now: AT_T + 11_000, toleranceSeconds: 10 }))).toBe('timestamp_out_of_tolerance');
  });

  it('refuses missing and malformed headers', () => {
    const v1 = v1Of(svcHeader(SECRET));
    expect(failure(() => verifyWebhook(BODY, {}, SECRET, { now: AT_T }))).toBe('missing_signature');
    expect(failure(() => verifyWebhook(BODY, { 'svc-signature': v1 }, SECRET, { now: AT_T }))).toBe('malformed_signature');
    expect(failure(() => verifyWebhook(BODY, { 'svc-signature': `t=${T},t=${T},${v1}` }, SECRET, { now: AT_T }))).toBe('malformed_signature');
    expect(failure(() => verifyWebhook(BODY, { 'svc-signature': `t=soon,${v1}` }, SECRET, { now: AT_T }))).toBe('malformed_signature');
    expect(failure(() => verifyWebhook(BODY, { 'svc-signature': `t=${T},v0=${'a'.repeat(64)}` }, SECRET, { now: AT_T }))).toBe('malformed_signature');
    expect(() => verifyWebhook(BODY, { 'svc-signature': v1 }, [], { now: AT_T })).toThrow(TypeError);
  });

  it('refuses a correctly signed body that is not JSON', () => {
    const header = svcHeader(SECRET, T, 'not json');
    expect(failure(() => verifyWebhook('not json', { 'svc-signature': header }, SECRET, { now: AT_T }))).toBe('invalid_payload');
  });

  it('checks against the real clock by default', () => {
    const now = Math.floor(Date.now() / 1000);
    expect(verifyWebhook(BODY, { 'svc-signature': svcHeader(SECRET, now) }, SECRET)).toEqual(EVENT);
    expect(failure(() => verifyWebhook(BODY, { 'svc-signature': svcHeader(SECRET, now - 3600) }, SECRET))).toBe('timestamp_out_of_tolerance');
  });
});

describe('verifyWebhook with Standard Webhooks headers', () => {
  const MSG_ID = EVENT.id;
  const standardHeaders = (secret: string, timestamp = T, payload = BODY) => ({
    'webhook-id': MSG_ID,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': new Webhook(secret).sign(MSG_ID, new Date(timestamp * 1000), payload),
  });

  it('accepts them when Svc-Signature is absent', () => {
    expect(verifyWebhook(BODY, standardHeaders(SECRET), SECRET, { now: AT_T })).toEqual(EVENT);
    expect(verifyWebhook(Buffer.from(BODY), new Headers(standardHeaders(SECRET)), [NEW_SECRET, SECRET], { now: AT_T })).toEqual(EVENT);
  });

  it('accepts either of space-separated signatures (rotation), and what the reference library accepts', () => {
    const old = standardHeaders(SECRET);
    const rotated = { ...old, 'webhook-signature': `${old['webhook-signature']} ${standardHeaders(NEW_SECRET)['webhook-signature']}` };
    expect(verifyWebhook(BODY, rotated, NEW_SECRET, { now: AT_T })).toEqual(EVENT);
    expect(verifyWebhook(BODY, rotated, SECRET, { now: AT_T })).toEqual(EVENT);
    const now = Math.floor(Date.now() / 1000);
    const fresh = standardHeaders(NEW_SECRET, now);
    expect(new Webhook(NEW_SECRET).verify(BODY, fresh)).toEqual(EVENT);
    expect(verifyWebhook(BODY, fresh, NEW_SECRET)).toEqual(EVENT);
  });

  it('refuses a tampered body, a wrong secret, a changed id, a stale timestamp, missing parts', () => {
    const headers = standardHeaders(SECRET);
    expect(failure(() => verifyWebhook(BODY.replace('n1', 'n2'), headers, SECRET, { now: AT_T }))).toBe('signature_mismatch');
    expect(failure(() => verifyWebhook(BODY, headers, NEW_SECRET, { now: AT_T }))).toBe('signature_mismatch');
    expect(failure(() => verifyWebhook(BODY, { ...headers, 'webhook-id': 'evt_other' }, SECRET, { now: AT_T }))).toBe('signature_mismatch');
    expect(failure(() => verifyWebhook(BODY, headers, SECRET, { now: AT_T + 301_000 }))).toBe('timestamp_out_of_tolerance');
    expect(verifyWebhook(BODY, headers, SECRET, { now: AT_T + 300_000 })).toEqual(EVENT);
    const { 'webhook-id': _id, ...withoutId } = headers;
    expect(failure(() => verifyWebhook(BODY, withoutId, SECRET, { now: AT_T }))).toBe('malformed_signature');
    expect(failure(() => verifyWebhook(BODY, { ...headers, 'webhook-signature': 'v2,abc' }, SECRET, { now: AT_T }))).toBe('malformed_signature');
  });

  it('prefers Svc-Signature when both are present', () => {
    const headers = { ...standardHeaders(SECRET), 'svc-signature': svcHeader(NEW_SECRET) };
    expect(failure(() => verifyWebhook(BODY, headers, SECRET, { now: AT_T }))).toBe('signature_mismatch');
    expect(verifyWebhook(BODY, headers, NEW_SECRET, { now: AT_T })).toEqual(EVENT);
  });
});
