import type { EntityManager } from '@mikro-orm/postgresql';
import type { DomainEvent } from '@platform/contracts';
import type { MessageEvent } from './message.state';

/** Inline projection of message streams into messaging.messages (GET /messages/{id}, D7 counts). */
export async function projectMessageEvents(em: EntityManager, events: DomainEvent[]): Promise<void> {
  // A send appends MessageAccepted and MessageSent together: one insert with the final status.
  const handedOver = new Set(events.filter((e) => e.type === 'MessageSent').map((e) => (e.data as { messageId: string }).messageId));
  // Sends decided together (a group commit) become one multi-row insert; any other statement goes after them, in event order.
  let accepted: unknown[][] = [];
  const insertAccepted = async () => {
    if (accepted.length === 0) return;
    const rows = accepted;
    accepted = [];
    await em.execute(
      `insert into messaging.messages (message_id, app_id, direction, app_user_id, user_id, type, text, media, status, client_reference, business_initiated, created_at, version)
       values ${rows.map(() => "(?, ?, 'outbound', ?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?, ?)").join(', ')}`,
      rows.flat(),
    );
  };
  for (const stored of events) {
    const event = stored as unknown as MessageEvent & DomainEvent;
    const at = new Date(stored.occurredAt);
    const v = stored.streamVersion;
    if (event.type !== 'MessageAccepted' && !(event.type === 'MessageSent' && handedOver.has(event.data.messageId))) await insertAccepted();
    switch (event.type) {
      case 'MessageAccepted': {
        const d = event.data;
        accepted.push([
          d.messageId,
          stored.appId,
          d.appUserId,
          d.userId,
          d.type,
          d.text,
          JSON.stringify(d.media),
          handedOver.has(d.messageId) ? 'sent' : 'accepted',
          d.clientReference,
          d.businessInitiated,
          at,
          handedOver.has(d.messageId) ? v + 1 : v,
        ]);
        break;
      }
      case 'MessageSent':
        if (handedOver.has(event.data.messageId)) break;
        await em.execute(`update messaging.messages set status = 'sent', version = ? where message_id = ?`, [v, event.data.messageId]);
        break;
      case 'MessageDelivered':
        await em.execute(`update messaging.messages set status = 'delivered', delivered_at = ?, version = ? where message_id = ?`, [at, v, event.data.messageId]);
        break;
      case 'MessageRead':
        // A read message was delivered: a read receipt that overtook the delivery one sets both.
        await em.execute(`update messaging.messages set status = 'read', read_at = ?, delivered_at = coalesce(delivered_at, ?), version = ? where message_id = ?`, [
          at,
          at,
          v,
          event.data.messageId,
        ]);
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
  await insertAccepted();
}
