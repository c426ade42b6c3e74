import type { DomainEvent } from '#platform/contracts';
import { handleCommand, type AppendMeta } from '#platform/event-store';
import type { ServiceRuntime } from '#platform/service-kit';
import { relationshipDecider, type RelationshipCommand } from './relationship.decider';

export const relationshipStreamId = (userId: string, appId: string) => `relationship-${userId}:${appId}`;

function metaFor(runtime: ServiceRuntime, command: RelationshipCommand, correlationId: string | null, causationId: string | null): AppendMeta {
  return { now: command.metadata.now, appId: command.data.appId, correlationId, causationId };
}

/** Decides a user's action in its own transaction (simulator calls). */
export async function runRelationshipCommand(runtime: ServiceRuntime, command: RelationshipCommand, requestId: string | null): Promise<DomainEvent[]> {
  const { events } = await handleCommand({
    em: runtime.em(),
    eventStore: runtime.eventStore,
    decider: relationshipDecider,
    streamId: relationshipStreamId(command.data.userId, command.data.appId),
    command,
    meta: metaFor(runtime, command, requestId, requestId),
  });
  return events;
}
