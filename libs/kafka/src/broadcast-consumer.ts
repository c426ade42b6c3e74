import type { Consumer, Kafka } from 'kafkajs';
import { kafkaNamespace, type DomainEvent } from '#platform/contracts';
import { groupSession, restartWhenCrashed, waitBeforeRestart } from './consumer-restarts';
import { validateDomainEvent } from './event-validator';

/**
 * A consumer without persistence for per-replica state (caches): its own group per process so every
 * replica sees every event, starting at the end of the topic. Resolves once the group is joined.
 */
export async function startBroadcastConsumer(args: {
  kafka: Kafka;
  groupId: string;
  topics: string[];
  fromBeginning?: boolean;
  onEvent: (event: DomainEvent) => void | Promise<void>;
  onError?: (error: unknown) => void;
  /** The group session (default GROUP_SESSION_TIMEOUT_MS): how long a crashed consumer keeps its replacement out. */
  sessionTimeoutMs?: number;
}): Promise<{ disconnect: () => Promise<void> }> {
  let current: Consumer | null = null;
  let stopped = false;
  let restarts = 0;
  const start = async (): Promise<void> => {
    const consumer = args.kafka.consumer({
      groupId: kafkaNamespace() + args.groupId,
      maxWaitTimeInMs: 1000,
      ...groupSession(args.sessionTimeoutMs),
      allowAutoTopicCreation: false,
    });
    current = consumer;
    restartWhenCrashed(consumer, restart, (error) => args.onError?.(error));
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
    restarts = 0;
  };
  const restart = async (): Promise<void> => {
    await current?.disconnect().catch(() => undefined);
    restarts += 1;
    await waitBeforeRestart(restarts);
    if (stopped) return;
    await start().catch((error) => {
      args.onError?.(error);
      void restart();
    });
  };
  await start();
  return {
    disconnect: async () => {
      stopped = true;
      await current?.disconnect().catch(() => undefined);
    },
  };
}
