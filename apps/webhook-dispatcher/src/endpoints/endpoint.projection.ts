import type { EntityManager } from '@mikro-orm/postgresql';
import { storedEventGuard } from '#platform/event-store';
import type { DomainEvent } from '#platform/contracts';
import { countOutcomes } from '../delivery-counts/delivery-counts.rule';
import { addCountsStatement } from '../delivery-counts/delivery-counts.sql';
import type { EndpointEvent } from './endpoint.state';

const isEndpointEvent = storedEventGuard<EndpointEvent>({
  WebhookEndpointRegistered: true,
  WebhookEndpointVerified: true,
  WebhookEndpointVerificationFailed: true,
  WebhookEndpointEventsChanged: true,
  WebhookEndpointUrlChanged: true,
  WebhookEndpointSecretRotated: true,
  WebhookEndpointDisabled: true,
  WebhookEndpointDeleted: true,
});

/**
 * Inline projection of endpoint streams into webhook_dispatcher.endpoints. An endpoint that stops
 * receiving (disabled, deleted, or a new URL awaiting its handshake) also abandons its pending
 * deliveries: they fail now, with the reason, and can be replayed once it is enabled again.
 */
export async function projectEndpointEvents(em: EntityManager, events: DomainEvent[]): Promise<void> {
  for (const stored of events) {
    if (!isEndpointEvent(stored)) continue;
    const event = stored;
    const at = new Date(stored.occurredAt);
    const v = stored.streamVersion;
    const id = event.data.endpointId;
    switch (event.type) {
      case 'WebhookEndpointRegistered':
        await em.execute(
          `insert into webhook_dispatcher.endpoints (endpoint_id, app_id, url, events, state, created_at, updated_at, version)
           values (?, ?, ?, ?, 'pending_verification', ?, ?, ?)`,
          [id, stored.appId, event.data.url, `{${event.data.events.join(',')}}`, at, at, v],
        );
        break;
      case 'WebhookEndpointVerified':
        await em.execute(
          `update webhook_dispatcher.endpoints set state = 'enabled', verified_at = ?, disabled_at = null, last_verification_error = null, updated_at = ?, version = ? where endpoint_id = ?`,
          [at, at, v, id],
        );
        await em.execute(`delete from webhook_dispatcher.endpoint_health where endpoint_id = ?`, [id]);
        break;
      case 'WebhookEndpointVerificationFailed':
        await em.execute(`update webhook_dispatcher.endpoints set last_verification_error = ?, updated_at = ?, version = ? where endpoint_id = ?`, [
          event.data.error,
          at,
          v,
          id,
        ]);
        break;
      case 'WebhookEndpointEventsChanged':
        await em.execute(`update webhook_dispatcher.endpoints set events = ?, updated_at = ?, version = ? where endpoint_id = ?`, [
          `{${event.data.events.join(',')}}`,
          at,
          v,
          id,
        ]);
        break;
      case 'WebhookEndpointUrlChanged':
        await em.execute(`update webhook_dispatcher.endpoints set url = ?, state = 'pending_verification', updated_at = ?, version = ? where endpoint_id = ?`, [
          event.data.url,
          at,
          v,
          id,
        ]);
        await abandonPending(em, id, at, 'the endpoint changed its URL');
        break;
      case 'WebhookEndpointSecretRotated':
        await em.execute(`update webhook_dispatcher.endpoints set updated_at = ?, version = ? where endpoint_id = ?`, [at, v, id]);
        break;
      case 'WebhookEndpointDisabled':
        await em.execute(`update webhook_dispatcher.endpoints set state = 'disabled', disabled_at = ?, updated_at = ?, version = ? where endpoint_id = ?`, [
          at,
          at,
          v,
          id,
        ]);
        await abandonPending(em, id, at, 'the endpoint was disabled');
        break;
      case 'WebhookEndpointDeleted':
        await em.execute(`delete from webhook_dispatcher.endpoints where endpoint_id = ?`, [id]);
        await em.execute(`delete from webhook_dispatcher.endpoint_credentials where endpoint_id = ?`, [id]);
        await em.execute(`delete from webhook_dispatcher.endpoint_health where endpoint_id = ?`, [id]);
        await abandonPending(em, id, at, 'the endpoint was deleted');
        break;
    }
  }
}

/**
 * DeliveryDecider's AbandonDelivery for every pending delivery of the endpoint, as one statement; each
 * counts as failed in the hourly delivery counts (slot 0, ADR 0219).
 */
async function abandonPending(em: EntityManager, endpointId: string, at: Date, reason: string): Promise<void> {
  const failed = await em.execute<{ app_id: string }[]>(
    `update webhook_dispatcher.deliveries set status = 'failed', failed_at = ?, last_error = ?, next_attempt_at = null, lease_until = null
     where endpoint_id = ? and status = 'pending' returning app_id`,
    [at, reason, endpointId],
  );
  const event = { type: 'DeliveryFailed', data: { attempt: null, at: at.toISOString(), responseStatus: null, error: reason } } as const;
  const counts = addCountsStatement(countOutcomes(failed.map((row) => ({ appId: row.app_id, endpointId, event, request: null }))), 0, '?');
  if (counts) await em.execute(counts.sql, counts.params);
}
