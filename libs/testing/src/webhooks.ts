import { createHmac, timingSafeEqual } from 'node:crypto';
import path from 'node:path';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import Stripe from 'stripe';
import { servedConformance } from './api-conformance';
import { api, expectStatus, publicUrl, unique, type TestApp } from './e2e';
import { HttpsReceiver, type ReceivedRequest } from './https-receiver';
import { testCertificates } from './test-certificates';

/** The names the test stack pins to local receivers (tools/test/test-env.mjs, WEBHOOK_DEV_HOSTS). */
export const TEST_WEBHOOK_HOSTS = ['hooks.local.test', 'hooks2.local.test', 'hooks3.local.test', 'hooks4.local.test', 'hooks5.local.test'];

/** An HTTPS receiver on the port the test stack pins TEST_WEBHOOK_HOSTS[index] to, with the local CA's certificate. */
export async function startWebhookReceiver(index = 0): Promise<HttpsReceiver> {
  const base = Number(process.env.TEST_BASE_PORT ?? 4000);
  const certs = testCertificates(process.env.TEST_CERTS_DIR ?? path.resolve(__dirname, '../../../.data/test-certs'));
  const receiver = await HttpsReceiver.start({ port: base + 71 + index, host: '127.0.0.1', certPem: certs.certPem, keyPem: certs.keyPem });
  // Every event body must match the document's webhooks section; waitFor fails on the first that does not.
  const conformance = await servedConformance(publicUrl());
  receiver.checkBodies((req) => (req.method === 'POST' && req.rawBody.length > 0 ? conformance.checkWebhookBody(req.rawBody) : []));
  return receiver;
}

export interface RegisteredWebhook {
  id: string;
  url: string;
  path: string;
  secret: string;
  state: string;
  verifyToken: string;
  [field: string]: unknown;
}

/** POST /webhooks for a fresh path on a pinned host; the receiver's default answer completes the handshake. */
export async function registerWebhook(app: TestApp, events: string[], options: { hostIndex?: number; verifyToken?: string } = {}): Promise<RegisteredWebhook> {
  const hookPath = `/${unique('hook-')}`;
  const verifyToken = options.verifyToken ?? unique('token-');
  const url = `https://${TEST_WEBHOOK_HOSTS[options.hostIndex ?? 0]}${hookPath}`;
  const res = expectStatus(await api('POST', '/webhooks', app.sandboxKey, { url, verifyToken, events }), 201);
  return { ...res.body, path: hookPath, verifyToken };
}

/** Requests a receiver got on one path (each test registers its own). */
export function requestsTo(receiver: HttpsReceiver, hookPath: string, method = 'POST'): ReceivedRequest[] {
  return receiver.requests.filter((r) => r.path === hookPath && r.method === method);
}

/**
 * An independent check of Svc-Signature, written from the spec's words rather than from the
 * dispatcher's code: v1 = hex HMAC-SHA256 over `<t>.<raw body>` keyed with the secret's UTF-8 bytes;
 * a match with any v1 counts. Returns which of `secrets` matched.
 */
export function verifiedSecrets(header: string, rawBody: Buffer, secrets: string[]): { t: number; matched: string[]; v1Count: number } {
  const parts = header.split(',').map((part) => {
    const eq = part.indexOf('=');
    return eq < 0 ? ['', ''] : [part.slice(0, eq), part.slice(eq + 1)];
  });
  const timestamps = parts.filter(([k]) => k === 't').map(([, v]) => v);
  const t = timestamps.length === 1 && /^\d+$/.test(timestamps[0]) ? Number(timestamps[0]) : NaN;
  const v1s = parts.filter(([k, v]) => k === 'v1' && /^[0-9a-f]{64}$/.test(v)).map(([, v]) => Buffer.from(v, 'hex'));
  const matched = Number.isNaN(t)
    ? []
    : secrets.filter((secret) => {
        const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${t}.`).update(rawBody).digest();
        return v1s.some((v1) => timingSafeEqual(v1, expected));
      });
  return { t, matched, v1Count: v1s.length };
}

/** Stripe's own verifier: an instance only holds `webhooks`; nothing here talks to Stripe. */
const stripe = new Stripe('sk_test_not_used');

/** `stripe.webhooks.constructEvent` on a delivery, with the receiver's clock at `nowSeconds` (its 6th argument). */
export function stripeAccepts(rawBody: Buffer | string, svcSignature: string, secret: string, nowSeconds: number): boolean {
  try {
    stripe.webhooks.constructEvent(rawBody, svcSignature, secret, 300, undefined, nowSeconds * 1000);
    return true;
  } catch (error) {
    if (error instanceof Stripe.errors.StripeSignatureVerificationError) return false;
    throw error;
  }
}

/**
 * The `standardwebhooks` library's `Webhook.verify` on a delivery's body and headers, with the
 * receiver's clock at `nowSeconds`. The library reads its clock from Date.now and takes no time
 * argument, so Date.now is pinned around the (synchronous) call: the platform's test clock runs
 * ahead of the real one once a test has advanced it.
 */
export function standardWebhooksAccepts(rawBody: Buffer | string, headers: Record<string, string>, secret: string, nowSeconds: number): boolean {
  const realNow = Date.now;
  Date.now = () => nowSeconds * 1000;
  try {
    new Webhook(secret).verify(rawBody, headers);
    return true;
  } catch (error) {
    if (error instanceof WebhookVerificationError) return false;
    throw error;
  } finally {
    Date.now = realNow;
  }
}
