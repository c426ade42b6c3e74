import type { EntityManager } from '@mikro-orm/postgresql';
import type { AcceptanceData, DomainEvent } from '#platform/contracts';
import { storedEventGuard } from '#platform/event-store';
import { type Statement } from '#platform/postgres';
import { messageCountsStatements } from '../message-counts/message-counts.sql';
import { opensOutbound, type MessageEvent } from './message.state';

const isMessageEvent = storedEventGuard<MessageEvent>({
  MessageAccepted: true,
  MessageSent: true,
  MessageDelivered: true,
  MessageRead: true,
  MessageFailed: true,
  MessageReceived: true,
});

/** Inline projection of message streams into messaging.messages (GET /messages/{id}, D7 counts) and the messages per day by status. */
export async function projectMessageEvents(em: EntityManager, events: DomainEvent[]): Promise<void> {
  // New outbound messages first, one multi-row insert for all (a group commit decides many sends at
  // once): every other statement updates a row its own message's first event made, which comes
  // earlier in the list or in an earlier append.
  const opened = new Set(newOutbound(events).map((open) => open.acceptance.messageId));
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
        // Its message's row, made by the insert above, is sent already.
        if (opened.has(event.data.messageId)) break;
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
  for (const { sql, params } of messageCountsStatements(events)) await em.execute(sql, params);
}

/** An event that opens an outbound message (D3): its acceptance, and the status and version the message has once the events are applied. */
interface OpenedOutbound {
  event: DomainEvent;
  acceptance: AcceptanceData;
  status: 'accepted' | 'sent';
  version: number;
}

/** The outbound messages the events open; one whose MessageSent follows its MessageAccepted among them starts out sent. */
function newOutbound(events: DomainEvent[]): OpenedOutbound[] {
  const opened = new Map<string, OpenedOutbound>();
  for (const event of events) {
    if (!isMessageEvent(event)) continue;
    const acceptance = opensOutbound(event);
    if (acceptance) {
      opened.set(acceptance.messageId, { event, acceptance, status: event.type === 'MessageSent' ? 'sent' : 'accepted', version: event.streamVersion });
      continue;
    }
    const open = event.type === 'MessageSent' ? opened.get(event.data.messageId) : undefined;
    if (open) opened.set(open.acceptance.messageId, { ...open, status: 'sent', version: event.streamVersion });
  }
  return [...opened.values()];
}

/**
 * The rows of the outbound messages the events open, one multi-row insert (null if none). For what
 * a send appends (MessageSent, or MessageAccepted and MessageSent in streams written before) this is
 * the whole projection, so a send can run it with its other statements in one round trip.
 */
export function newOutboundMessages(events: DomainEvent[]): Statement | null {
  const opened = newOutbound(events);
  if (opened.length === 0) return null;
  return {
    sql: `insert into messaging.messages (message_id, app_id, direction, app_user_id, user_id, type, text, media, status, client_reference, business_initiated,
         created_at, version, template, idempotency_key, body_hash)
       values ${opened.map(() => "(?, ?, 'outbound', ?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?, ?, ?::jsonb, ?, ?)").join(', ')}`,
    params: opened.flatMap(({ event, acceptance: d, status, version }) => [
      d.messageId,
      event.appId,
      d.appUserId,
      d.userId,
      d.type,
      d.text,
      JSON.stringify(d.media),
      status,
      d.clientReference,
      d.businessInitiated,
      new Date(event.occurredAt),
      version,
      d.template ? JSON.stringify(d.template) : null,
      d.idempotency?.key ?? null,
      d.idempotency?.bodyHash ?? null,
    ]),
  };
}
