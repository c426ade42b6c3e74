import type { EntityManager } from '@mikro-orm/postgresql';
import type { DomainEvent } from '#platform/contracts';
import { storedEventGuard } from '#platform/event-store';
import { type Statement } from '#platform/postgres';
import type { MessageEvent } from './message.state';

const isMessageEvent = storedEventGuard<MessageEvent>({
  MessageAccepted: true,
  MessageSent: true,
  MessageDelivered: true,
  MessageRead: true,
  MessageFailed: true,
  MessageReceived: true,
});

/** Inline projection of message streams into messaging.messages (GET /messages/{id}, D7 counts). */
export async function projectMessageEvents(em: EntityManager, events: DomainEvent[]): Promise<void> {
  const handedOver = handedOverIn(events);
  // New outbound messages first, one multi-row insert for all (a group commit decides many sends at
  // once): every other statement updates a row its own message's MessageAccepted made, which comes
  // earlier in the list or in an earlier append.
  const insert = newOutboundMessages(events);
  if (insert) await em.execute(insert.sql, insert.params);
  for (const stored of events) {
    if (!isMessageEvent(stored)) continue;
    const event = stored;
    const at = new Date(stored.occurredAt);
    const v = stored.streamVersion;
    switch (event.type) {
      case 'MessageAccepted':
        break;
      case 'MessageSent':
        if (handedOver.has(event.data.messageId)) break;
        await em.execute(`update messaging.messages set status = 'sent', version = ? where message_id = ?`, [v, event.data.messageId]);
        break;
      case 'MessageDelivered':
        await em.execute(`update messaging.messages set status = 'delivered', delivered_at = ?, version = ? where message_id = ?`, [
          at,
          v,
          event.data.messageId,
        ]);
        break;
      case 'MessageRead':
        // A read message was delivered: a read receipt that overtook the delivery one sets both.
        await em.execute(
          `update messaging.messages set status = 'read', read_at = ?, delivered_at = coalesce(delivered_at, ?), version = ? where message_id = ?`,
          [at, at, v, event.data.messageId],
        );
        break;
      case 'MessageFailed':
        await em.execute(`update messaging.messages set status = 'failed', failure_reason = ?, failed_at = ?, version = ? where message_id = ?`, [
          event.data.reason,
          at,
          v,
          event.data.messageId,
        ]);
        break;
      case 'MessageReceived': {
        const d = event.data;
        await em.execute(
          `insert into messaging.messages (message_id, app_id, direction, app_user_id, user_id, type, text, media, status, created_at, version)
           values (?, ?, 'inbound', ?, ?, ?, ?, ?::jsonb, 'received', ?, ?)`,
          [d.messageId, stored.appId, d.appUserId, d.userId, d.type, d.text, JSON.stringify(d.media.map(({ objectKey: _key, ...file }) => file)), at, v],
        );
        break;
      }
    }
  }
}

/** Messages whose MessageSent is among the events: a send appends it with MessageAccepted, so the row starts out sent. */
function handedOverIn(events: DomainEvent[]): Set<string> {
  return new Set(events.filter((e) => e.type === 'MessageSent').map((e) => (e.data as { messageId: string }).messageId));
}

/**
 * The rows of the outbound messages the events accept, one multi-row insert (null if none). For
 * what a send appends (MessageAccepted and MessageSent) this is the whole projection, so a send
 * can run it with its other statements in one round trip.
 */
export function newOutboundMessages(events: DomainEvent[]): Statement | null {
  const handedOver = handedOverIn(events);
  const accepted = events.filter(isMessageEvent).filter((e) => e.type === 'MessageAccepted');
  if (accepted.length === 0) return null;
  return {
    sql: `insert into messaging.messages (message_id, app_id, direction, app_user_id, user_id, type, text, media, status, client_reference, business_initiated, created_at, version)
       values ${accepted.map(() => "(?, ?, 'outbound', ?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?, ?)").join(', ')}`,
    params: accepted.flatMap((stored) => {
      const d = stored.data;
      const sent = handedOver.has(d.messageId);
      return [
        d.messageId,
        stored.appId,
        d.appUserId,
        d.userId,
        d.type,
        d.text,
        JSON.stringify(d.media),
        sent ? 'sent' : 'accepted',
        d.clientReference,
        d.businessInitiated,
        new Date(stored.occurredAt),
        sent ? stored.streamVersion + 1 : stored.streamVersion,
      ];
    }),
  };
}
