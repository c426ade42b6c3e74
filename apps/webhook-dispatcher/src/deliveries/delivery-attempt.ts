import type { Clock } from '#platform/clock';
import { webhookDeliveryHeaders, type PublicEventType } from '#platform/contracts';
import type { WebhookNetwork } from '../network/webhook-network';
import type { SentHeader } from '../outbound/outgoing-headers';
import type { AttemptResult } from './delivery.decider';

/** A claimed delivery with everything its attempt needs (one query: delivery, payload, endpoint, secrets). */
export interface ClaimedDelivery {
  deliveryId: string;
  appId: string;
  endpointId: string;
  eventId: string;
  eventType: PublicEventType;
  /** This attempt's number (Svc-Delivery-Attempt). */
  attempt: number;
  /** When the attempt was due, as claimed (its lateness is the time it started minus this). */
  dueAt?: Date;
  createdAt: string;
  payload: string | null;
  endpointState: string | null;
  url: string | null;
  secret: string | null;
  previousSecret: string | null;
  previousSecretExpiresAt: string | null;
}

export interface AttemptReport {
  delivery: ClaimedDelivery;
  startedAt: Date;
  finishedAt: Date;
  durationMs: number;
  /** null: the endpoint no longer takes deliveries (abandon, no request was made). */
  result: AttemptResult | null;
  abandonReason?: string;
  /** Every header of the request as written; null when none was made (held, refused, abandoned). */
  requestHeaders: SentHeader[] | null;
  /** The response body's first 2 KiB as text; null without a response. */
  responseExcerpt: string | null;
}

/**
 * One attempt: the URL is checked again (DNS may have changed since registration), the body is
 * signed with the time of this attempt and every live secret (Svc-Signature and the Standard
 * Webhooks headers), and the request goes to the checked address with the 10-second answer limit,
 * over the endpoint's own connections. With `heldBecause` (the endpoint's lane is open) nothing is
 * sent: the attempt is held, for that reason.
 */
export async function attemptDelivery(delivery: ClaimedDelivery, network: WebhookNetwork, clock: Clock, heldBecause?: string): Promise<AttemptReport> {
  const startedAt = clock.now();
  const started = performance.now();
  const report = (
    result: AttemptResult | null,
    abandonReason?: string,
    exchange: Pick<AttemptReport, 'requestHeaders' | 'responseExcerpt'> = { requestHeaders: null, responseExcerpt: null },
  ): AttemptReport => ({
    delivery,
    startedAt,
    finishedAt: clock.now(),
    durationMs: Math.round(performance.now() - started),
    result,
    abandonReason,
    ...exchange,
  });
  if (delivery.endpointState !== 'enabled' || !delivery.url || !delivery.secret) return report(null, 'the endpoint no longer takes deliveries');
  if (delivery.payload === null) return report(null, 'the payload is past its retention');
  if (heldBecause !== undefined) return report({ kind: 'held', error: heldBecause });
  const check = await network.checkForDelivery(delivery.url);
  if (!check.ok) return report({ kind: 'refused', error: `${check.code}: ${check.message}` });
  const secrets = [delivery.secret];
  if (delivery.previousSecret && delivery.previousSecretExpiresAt && Date.parse(delivery.previousSecretExpiresAt) > startedAt.getTime())
    secrets.push(delivery.previousSecret);
  const body = Buffer.from(delivery.payload, 'utf8');
  const outcome = await network.http.post({
    target: check.target,
    url: check.target.url,
    headers: webhookDeliveryHeaders({
      secrets,
      timestampSeconds: Math.floor(startedAt.getTime() / 1000),
      body,
      eventId: delivery.eventId,
      eventType: delivery.eventType,
      deliveryId: delivery.deliveryId,
      attempt: delivery.attempt,
    }),
    body,
    pool: delivery.endpointId,
  });
  switch (outcome.kind) {
    case 'response':
      return report({ kind: 'response', status: outcome.status }, undefined, {
        requestHeaders: outcome.requestHeaders,
        responseExcerpt: outcome.responseExcerpt,
      });
    case 'timeout':
      return report({ kind: 'timeout' }, undefined, { requestHeaders: outcome.requestHeaders, responseExcerpt: null });
    case 'network':
      return report({ kind: 'network', error: outcome.error }, undefined, { requestHeaders: outcome.requestHeaders, responseExcerpt: null });
  }
}
