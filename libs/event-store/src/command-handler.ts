import type { EntityManager } from '@mikro-orm/postgresql';
import type { DomainEvent } from '#platform/contracts';
import type { Decider } from '#platform/decider';
import { StreamVersionConflict, type AppendMeta, type EventStore, type NewEvent } from './event-store';

export interface HandleCommandArgs<State, Command, Event extends NewEvent> {
  /** A fresh EntityManager; the handler opens the transaction. */
  em: EntityManager;
  eventStore: EventStore;
  decider: Decider<State, Command, Event>;
  streamId: string;
  command: Command;
  meta: AppendMeta;
  /** The stream cannot exist yet (its id was just minted): skip reading it. */
  newStream?: boolean;
  /** Inline projections, updated in the same transaction as the append. */
  project?: (em: EntityManager, events: DomainEvent[], state: State) => Promise<void>;
  /** Writes that belong to the decision's transaction even when it appends nothing (a credential beside the stream). */
  alongside?: (em: EntityManager, events: DomainEvent[]) => Promise<void>;
  maxRetries?: number;
}

/**
 * Load → decide → append (+ inline projections) in one transaction. A concurrent writer makes
 * the append fail on (stream_id, stream_version); the whole thing is then retried on fresh state.
 */
export async function handleCommand<State, Command, Event extends NewEvent>(
  args: HandleCommandArgs<State, Command, Event>,
): Promise<{ events: DomainEvent[]; state: State; version: number }> {
  const maxRetries = args.maxRetries ?? 5;
  for (let attempt = 0; ; attempt++) {
    try {
      return await args.em.fork().transactional((em) => decideInTransaction({ ...args, em }));
    } catch (error) {
      if (error instanceof StreamVersionConflict && attempt < maxRetries) continue;
      throw error;
    }
  }
}

/**
 * The body of handleCommand inside a transaction the caller already holds (a Kafka consumer records
 * its inbox row in the same one). No retry here: a StreamVersionConflict aborts the caller's
 * transaction, and the consumer retries the whole event.
 */
export async function decideInTransaction<State, Command, Event extends NewEvent>(
  args: Omit<HandleCommandArgs<State, Command, Event>, 'maxRetries'>,
): Promise<{ events: DomainEvent[]; state: State; version: number }> {
  const tx = args.em;
  const { state, version } = args.newStream
    ? { state: args.decider.initialState(), version: 0 }
    : await args.eventStore.aggregate(tx, args.streamId, args.decider);
  const newEvents = args.decider.decide(args.command, state);
  const stored = await args.eventStore.append(tx, args.streamId, version, newEvents, args.meta);
  const nextState = newEvents.reduce(args.decider.evolve, state);
  if (args.project && stored.length > 0) await args.project(tx, stored, nextState);
  await args.alongside?.(tx, stored);
  return { events: stored, state: nextState, version: version + stored.length };
}
