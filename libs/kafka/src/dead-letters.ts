import type { MikroORM } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { KafkaMessage } from 'kafkajs';
import { deadLetterStatement, recordDeadLetter, type DeadLetter } from '#platform/event-store';
import { type Statement } from '#platform/postgres';
import type { Parsed } from './event-message.parser';

/** Where a consumer's dead letters go (its schema's dead_letters), and who hears of each. */
export interface DeadLetterSink {
  orm: MikroORM;
  schema: string;
  consumerName: string;
  onError?: (error: unknown, context: Record<string, unknown>) => void;
}

/** A message that cannot be applied (not JSON, not an object, an invalid event). */
export type DeadMessage = Extract<Parsed, { kind: 'dead' }>;

/** Why a message is dead: the message, its event id when known, the raw text kept and the error. */
export interface DeadMessageReport {
  message: KafkaMessage;
  eventId: string | null;
  payload: string;
  error: string;
}

const reportOf = (item: DeadMessage): DeadMessageReport => ({ message: item.message, eventId: item.eventId, payload: item.raw, error: item.reason });

/** Reports a dead letter (onError, with `deadLettered`) and returns its dead_letters row. */
function reported(o: DeadLetterSink, topic: string, partition: number, { message, eventId, payload, error }: DeadMessageReport): DeadLetter {
  o.onError?.(new Error(error), { consumer: o.consumerName, topic, partition, offset: message.offset, deadLettered: true });
  return { consumer: o.consumerName, topic, partition, offset: message.offset, eventId, payload, error };
}

/** Dead-letters a message of a slice applied together, in that slice's transaction. */
export async function deadLetterInTransaction(o: DeadLetterSink, tx: EntityManager, topic: string, partition: number, item: DeadMessage): Promise<void> {
  await recordDeadLetter(tx, o.schema, reported(o, topic, partition, reportOf(item)));
}

/** Dead-letters a message of a pipelined slice: the statement goes with the transaction's commit. */
export function deadLetterWrite(o: DeadLetterSink, topic: string, partition: number, item: DeadMessage): Statement {
  return deadLetterStatement(o.schema, reported(o, topic, partition, reportOf(item)));
}

/** Dead-letters a message applied one by one (invalid, or failing every attempt), in a transaction of its own. */
export async function deadLetterAlone(o: DeadLetterSink, topic: string, partition: number, dead: DeadMessage | DeadMessageReport): Promise<void> {
  const letter = reported(o, topic, partition, 'kind' in dead ? reportOf(dead) : dead);
  await o.orm.em.fork().transactional(async (em) => {
    await recordDeadLetter(em as unknown as EntityManager, o.schema, letter);
  });
}
