import type { EntityManager } from '@mikro-orm/postgresql';
import type { KafkaMessage } from 'kafkajs';
import { deadLetteredOffsetsStatement, deadLetterStatement, recordDeadLetter, type DeadLetter } from '#platform/event-store';
import { type PostgresOrm, type Statement } from '#platform/postgres';
import type { Parsed } from './event-message.parser';

/** Where a consumer's dead letters go (its schema's dead_letters), and who hears of each. */
export interface DeadLetterSink {
  orm: PostgresOrm;
  schema: string;
  consumerName: string;
  onError?: (error: unknown, context: Record<string, unknown>) => void;
  /** The service's clock (default Date.now): a dead letter's age counts by it. */
  now?: () => number;
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
  return { consumer: o.consumerName, topic, partition, offset: message.offset, eventId, payload, error, createdAt: new Date((o.now ?? Date.now)()) };
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
    await recordDeadLetter(em, o.schema, letter);
  });
}

/**
 * A replay over offsets already applied passes over all of them but the dead-lettered events: those
 * are applied again (their fix deployed), and their dead letters go once they are. Per slice, the
 * offsets to retry; no query unless a slice reaches back to or below its applied offset.
 */
export async function deadLettersToRetry(
  o: DeadLetterSink,
  slices: { topic: string; partition: number; work: Parsed[] }[],
  before: Map<string, bigint>,
  query: (statements: Statement[]) => Promise<Record<string, unknown>[][]>,
): Promise<Set<string>[]> {
  const replayed = slices.map(({ topic, partition, work }) => {
    const appliedUpTo = before.get(`${topic}:${partition}`) ?? -1n;
    return work.filter((item) => item.kind === 'apply' && BigInt(item.message.offset) <= appliedUpTo).map((item) => item.message.offset);
  });
  const asking = slices.flatMap((_, at) => (replayed[at].length > 0 ? [at] : []));
  const retries = slices.map(() => new Set<string>());
  if (asking.length === 0) return retries;
  const rows = await query(asking.map((at) => deadLetteredOffsetsStatement(o.schema, o.consumerName, slices[at].topic, slices[at].partition, replayed[at])));
  for (const [i, at] of asking.entries()) for (const row of rows[i]) retries[at].add(String(row.offset));
  return retries;
}
