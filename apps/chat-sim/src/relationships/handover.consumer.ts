import { DOMAIN_TOPIC_PARTITIONS, isEventOf, TOPICS, type DomainEvent, type UserStatus } from '#platform/contracts';
import { foldStoredEvents, pgTextArray } from '#platform/event-store';
import { type Statement } from '#platform/postgres';
import type { PipelinedConsumerSpec, ServiceRuntime } from '#platform/service-kit';
import { relationshipDecider } from './relationship.decider';
import { relationshipStreamId } from './relationship.stream';

/**
 * Consumes chat.outbound: each handed-over message lands in the user's inbox, unless the user has
 * stopped or blocked the app since, or the account is no longer active. Then the chat product
 * refuses it and says so on chat.user-events (D4).
 *
 * A slice of handoffs takes two round trips however many messages it holds: the users' accounts
 * and the relationship streams are read with `begin` and the inbox record, and the refusals (stream
 * appends, with their outbox rows) and inbox messages are written with the commit. Another writer
 * appending to a stream meanwhile (the user stops the app) makes the append's version collide: the
 * slice rolls back and its events are applied again one by one, each deciding on the new stream.
 *
 * The effect is its own inbox (docs/adr/0226-an-effect-that-is-its-own-inbox.md): a message lands
 * once by its id, and the relationship refuses a message once (a refusal is on its stream), so any
 * copy of a handover writes nothing and the consumer writes no inbox row per handover.
 */
export function handoverConsumer(runtime: ServiceRuntime): PipelinedConsumerSpec {
  // The consumer applies only this type (its one pipelined type), schema-checked.
  const handoffOf = (event: DomainEvent) => {
    if (!isEventOf(event, 'MessageHandedOver')) throw new Error(`handover: unexpected ${event.type}`);
    return event.data;
  };
  return {
    name: 'handover',
    topics: [TOPICS.chatOutbound],
    // Partitions at once, so that a busy one's pause (ADR 0020) holds one fetch, not each partition's in turn.
    partitionsConcurrently: DOMAIN_TOPIC_PARTITIONS,
    paceMs: 50,
    pipelined: {
      types: ['MessageHandedOver'],
      dedupedByEffect: true,
      read: (events) => {
        const handoffs = events.map(handoffOf);
        return [
          { sql: `select user_id, status from chat_sim.users where user_id = any(?::text[])`, params: [pgTextArray(unique(handoffs.map((d) => d.userId)))] },
          runtime.eventStore.readStreamsStatement(unique(handoffs.map((d) => relationshipStreamId(d.userId, d.appId)))),
        ];
      },
      decide: ([users, streamRows]) => {
        const accounts = new Map(users.map((row) => [row.user_id as string, row.status as UserStatus]));
        const streams = runtime.eventStore.streamsFrom(streamRows);
        const landed: LandedMessage[] = [];
        const decideOne = (event: DomainEvent): Statement[] => {
          const d = handoffOf(event);
          const streamId = relationshipStreamId(d.userId, d.appId);
          const stream = streams.get(streamId) ?? { events: [], version: 0 };
          const state = foldStoredEvents(relationshipDecider, stream.events);
          const now = runtime.clock.now();
          const refusals = relationshipDecider.decide(
            {
              type: 'HandOverMessage',
              data: { userId: d.userId, appId: d.appId, account: accounts.get(d.userId) ?? 'deleted', messageId: d.messageId },
              metadata: { now },
            },
            state,
          );
          if (refusals.length > 0) {
            const { stored, statements } = runtime.eventStore.appendStatements([
              {
                streamId,
                expectedVersion: stream.version,
                events: refusals,
                meta: { now, appId: d.appId, correlationId: event.correlationId, causationId: event.eventId, idSeed: event.eventId },
              },
            ]);
            // A later handoff of this slice to the same pair decides on the stream with these refusals.
            streams.set(streamId, { events: [...stream.events, ...stored[0]], version: stream.version + stored[0].length });
            return statements;
          }
          landed.push({ message_id: d.messageId, user_id: d.userId, app_id: d.appId, type: d.type, text: d.text, media: d.media, received_at: now });
          return [];
        };
        return Object.assign(decideOne, { finish: () => (landed.length === 0 ? [] : [landedStatement(landed)]) });
      },
    },
  };
}

interface LandedMessage {
  message_id: string;
  user_id: string;
  app_id: string;
  type: string;
  text: string | null;
  media: unknown;
  received_at: Date;
}

/**
 * The slice's messages that land, in one statement. A message handed over twice (a redrive under a
 * new event id, even within one slice) still lands once.
 */
function landedStatement(messages: LandedMessage[]): Statement {
  return {
    sql: `insert into chat_sim.inbox_messages (message_id, user_id, app_id, type, text, media, received_at)
          select m.message_id, m.user_id, m.app_id, m.type, m.text, m.media, m.received_at
          from jsonb_to_recordset(?::jsonb) as m(message_id text, user_id text, app_id text, type text, text text, media jsonb, received_at timestamptz)
          on conflict (message_id) do nothing`,
    params: [JSON.stringify(messages)],
  };
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
