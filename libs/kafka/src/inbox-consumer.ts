import type { MikroORM } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Consumer, Kafka, KafkaMessage } from 'kafkajs';
import { kafkaNamespace, type DomainEvent } from '@platform/contracts';
import { recordDeadLetter, recordInInbox } from '@platform/event-store';
import { validateDomainEvent } from './event-validator';

export type EventHandler = (em: EntityManager, event: DomainEvent) => Promise<void>;

export interface InboxConsumerOptions {
  kafka: Kafka;
  orm: MikroORM;
  /** The service's schema, holding inbox and dead_letters. */
  schema: string;
  /** Name recorded in the inbox; with the namespace prefix also the consumer group id. */
  consumerName: string;
  /** Consumer group; default: namespace + consumerName. A rebuild into a fresh schema uses its own. */
  groupId?: string;
  topics: string[];
  /** Effects by event type; other types on the topics are skipped. */
  handlers: Record<string, EventHandler>;
  fromBeginning?: boolean;
  /** Called after an event's transaction committed (waiters, caches, metrics). */
  onApplied?: (event: DomainEvent) => void;
  onError?: (error: unknown, context: Record<string, unknown>) => void;
  maxAttempts?: number;
  /**
   * Partitions handled at once (default 1). Order holds within a partition, which is all the keys
   * promise; more lets a consumer whose events wait on the database keep up with its topics.
   */
  partitionsConcurrently?: number;
}

/**
 * An idempotent consumer (DESIGN section 2): each event runs in a fresh MikroORM context and one
 * transaction that records `(consumer, eventId)` in the inbox together with the effect; the offset
 * is resolved only after that commit. Invalid payloads, and events that keep failing, go to
 * dead_letters with the reason instead of blocking the partition.
 */
export class InboxConsumer {
  private consumer: Consumer | null = null;
  /** Set once the consumer first joined its group: until then the service is not ready. */
  joined = false;

  constructor(private readonly options: InboxConsumerOptions) {}

  async start(): Promise<void> {
    const o = this.options;
    const consumer = o.kafka.consumer({
      groupId: o.groupId ?? kafkaNamespace() + o.consumerName,
      sessionTimeout: 30000,
      heartbeatInterval: 3000,
      maxWaitTimeInMs: 200,
      allowAutoTopicCreation: false,
    });
    this.consumer = consumer;
    consumer.on(consumer.events.GROUP_JOIN, () => (this.joined = true));
    await consumer.connect();
    await consumer.subscribe({ topics: o.topics, fromBeginning: o.fromBeginning ?? true });
    await consumer.run({
      partitionsConsumedConcurrently: o.partitionsConcurrently ?? 1,
      autoCommitInterval: 500,
      autoCommitThreshold: 200,
      eachBatchAutoResolve: false,
      eachBatch: async ({ batch, resolveOffset, heartbeat, commitOffsetsIfNecessary, isRunning, isStale }) => {
        for (const message of batch.messages) {
          if (!isRunning() || isStale()) return;
          await this.handle(batch.topic, batch.partition, message);
          resolveOffset(message.offset);
          await commitOffsetsIfNecessary();
          await heartbeat();
        }
      },
    });
  }

  async stop(): Promise<void> {
    await this.consumer?.disconnect().catch(() => undefined);
    this.consumer = null;
  }

  private async handle(topic: string, partition: number, message: KafkaMessage): Promise<void> {
    const o = this.options;
    const raw = message.value?.toString('utf8') ?? '';
    let event: DomainEvent;
    try {
      event = JSON.parse(raw) as DomainEvent;
    } catch {
      await this.deadLetter(topic, partition, message, null, raw, 'payload is not JSON');
      return;
    }
    if (event === null || typeof event !== 'object' || Array.isArray(event)) {
      await this.deadLetter(topic, partition, message, null, raw, 'payload is not a JSON object');
      return;
    }
    // Own properties only: a type such as "constructor" must not find Object.prototype's.
    const handler = typeof event.type === 'string' && Object.hasOwn(o.handlers, event.type) ? o.handlers[event.type] : undefined;
    if (!handler) return;
    const problem = validateDomainEvent(event);
    if (problem) {
      await this.deadLetter(topic, partition, message, event.eventId ?? null, raw, `invalid event: ${problem}`);
      return;
    }
    const maxAttempts = o.maxAttempts ?? 5;
    for (let attempt = 1; ; attempt++) {
      try {
        let applied = false;
        await o.orm.em.fork().transactional(async (em) => {
          const tx = em as unknown as EntityManager;
          if (!(await recordInInbox(tx, o.schema, o.consumerName, event.eventId))) return;
          await handler(tx, event);
          applied = true;
        });
        if (applied) o.onApplied?.(event);
        return;
      } catch (error) {
        o.onError?.(error, { consumer: o.consumerName, eventId: event.eventId, type: event.type, attempt });
        if (attempt >= maxAttempts) {
          await this.deadLetter(topic, partition, message, event.eventId, raw, String((error as Error)?.stack ?? error));
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, Math.min(200 * 2 ** attempt, 5000)));
      }
    }
  }

  private async deadLetter(topic: string, partition: number, message: KafkaMessage, eventId: string | null, payload: string, error: string) {
    const o = this.options;
    o.onError?.(new Error(error), { consumer: o.consumerName, topic, partition, offset: message.offset, deadLettered: true });
    await o.orm.em.fork().transactional(async (em) => {
      await recordDeadLetter(em as unknown as EntityManager, o.schema, {
        consumer: o.consumerName,
        topic,
        partition,
        offset: message.offset,
        eventId,
        payload,
        error,
      });
    });
  }
}

/**
 * A consumer without persistence for per-replica state (caches): its own group per process so every
 * replica sees every event, starting at the end of the topic.
 */
export async function startBroadcastConsumer(args: {
  kafka: Kafka;
  groupId: string;
  topics: string[];
  fromBeginning?: boolean;
  onEvent: (event: DomainEvent) => void | Promise<void>;
}): Promise<Consumer> {
  const consumer = args.kafka.consumer({ groupId: kafkaNamespace() + args.groupId, maxWaitTimeInMs: 100, allowAutoTopicCreation: false });
  await consumer.connect();
  await consumer.subscribe({ topics: args.topics, fromBeginning: args.fromBeginning ?? false });
  const joined = new Promise<void>((resolve) => consumer.on(consumer.events.GROUP_JOIN, () => resolve()));
  await consumer.run({
    eachMessage: async ({ message }) => {
      try {
        const event = JSON.parse(message.value?.toString('utf8') ?? '') as DomainEvent;
        if (validateDomainEvent(event) === null) await args.onEvent(event);
      } catch {
        // A broadcast consumer only refreshes caches; a bad message must not stop it.
      }
    },
  });
  await joined;
  return consumer;
}
