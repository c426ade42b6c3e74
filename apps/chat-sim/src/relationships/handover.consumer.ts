import type { EntityManager } from '@mikro-orm/postgresql';
import { TOPICS, type DomainEvent, type MessageHandedOver, type UserStatus } from '@platform/contracts';
import type { ConsumerSpec, ServiceRuntime } from '@platform/service-kit';
import { applyRelationshipCommand } from './relationship.stream';

/**
 * Consumes chat.outbound: each handed-over message lands in the user's inbox, unless the user has
 * stopped or blocked the app since, or the account is no longer active. Then the chat product
 * refuses it and says so on chat.user-events (DESIGN D4).
 */
export function handoverConsumer(runtime: ServiceRuntime): ConsumerSpec {
  return {
    name: 'handover',
    topics: [TOPICS.chatOutbound],
    paceMs: 10,
    handlers: {
      MessageHandedOver: async (em: EntityManager, event: DomainEvent) => {
        const d = (event as unknown as MessageHandedOver).data;
        const [user]: { status: UserStatus }[] = await em.execute(`select status from chat_sim.users where user_id = ?`, [d.userId]);
        const refusals = await applyRelationshipCommand(
          runtime,
          em,
          { type: 'HandOverMessage', data: { userId: d.userId, appId: d.appId, account: user?.status ?? 'deleted', messageId: d.messageId } },
          event,
        );
        if (refusals.length > 0) return;
        // A message handed over twice (a redrive under a new event id) still lands once.
        await em.execute(
          `insert into chat_sim.inbox_messages (message_id, user_id, app_id, type, text, media, received_at)
           values (?, ?, ?, ?, ?, ?::jsonb, ?) on conflict (message_id) do nothing`,
          [d.messageId, d.userId, d.appId, d.type, d.text, JSON.stringify(d.media), runtime.clock.now()],
        );
      },
    },
  };
}
