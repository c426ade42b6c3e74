// Over 300 lines because the request/reply server is one lifecycle: taking a fetched batch, queueing
// each request fairly per app, answering it on Nest's wire and draining on close share the same
// per-request state; split up, each part would reach into the others'.
import { KafkaContext, KafkaHeaders, ServerKafka, type KafkaOptions } from '@nestjs/microservices';
import type { Consumer, EachBatchPayload, KafkaMessage } from 'kafkajs';
import { isObservable, lastValueFrom } from 'rxjs';
import { RPC_APP_ID_HEADER, type RpcReply } from '#platform/contracts';
import { DomainError } from '#platform/errors';
import { coalesceSends } from './coalescing-send';
import { KeyHashPartitioner } from './key-hash-partitioner';
import { defaultSlotLimits, FairSlots, type FairSlotsLimits } from './fair-slots';
import { OffsetCommitter } from './offset-committer';
import type { PartitionAssignment } from './consumer-lag';
import { restartWhenCrashed, trackMembership, waitBeforeRestart } from './consumer-restarts';
import { prepareKafkaJs } from './kafka-client';
import { decodeValue, headerText, NO_MESSAGE_HANDLER } from './rpc-wire';

/** How long closing waits for the requests under way to be answered. */
const CLOSE_DRAIN_MS = 5_000;
/** Request topics a server remembers the handler route of (it subscribes to one or two). */
const MAX_REMEMBERED_ROUTES = 64;
/** The Retry-After of a request refused over its app's waiting list: a queue of one slot share drains in well under a second. */
const BUSY_RETRY_AFTER_SECONDS = 1;

/** One request as Nest's handleMessage takes it. */
type RequestMessage = { topic: string; partition: number; message: KafkaMessage; heartbeat: EachBatchPayload['heartbeat']; pause: EachBatchPayload['pause'] };

export interface RpcServerLimits {
  /** Requests handled at once by this process, over all partitions (RPC_MAX_IN_FLIGHT). */
  maxInFlight: number;
  /** How the slots are shared between apps (RPC_MAX_IN_FLIGHT_PER_APP, RPC_MAX_WAITING_PER_APP); defaultSlotLimits otherwise. */
  slots?: Partial<Omit<FairSlotsLimits, 'maxInFlight'>>;
  /** A request refused at once because its app's waiting list was full. */
  onRefused?: () => void;
  onError?: (error: unknown) => void;
  /** Requests left after each batch, per partition (the consumer lag gauge). */
  onLag?: (topic: string, partition: number, lag: number) => void;
  /**
   * When set, request offsets are committed at most this often (kafkajs' own commit after every
   * batch is turned off): only for a service whose every operation gives the same outcome when run
   * again, since a crash or a rebalance hands the uncommitted requests to a server again.
   */
  commitEveryMs?: number;
}

/**
 * @nestjs/microservices' Kafka server (the `@MessagePattern` handlers and the wire are Nest's,
 * rpc-wire.ts), with these changes for a service under load:
 * - a request runs from its record to its reply without Nest's per-record parser, observables and
 *   `nextTick` (handleMessage);
 * - requests are handled concurrently (up to `maxInFlight` per process), and the next fetch does
 *   not wait for a fetched batch to be answered, where Nest's `eachMessage` handles one request per
 *   partition at a time, so a service could never have more commands in progress than partitions,
 *   each waiting on its database round trips. A request's offset may thus be committed before it is
 *   answered: a crash loses the answer, and the caller gets 500 after its timeout (the contract for
 *   500 is to retry with the same Idempotency-Key);
 * - replies produced in the same tick go out in one Produce request;
 * - with `commitEveryMs`, request offsets are committed on an interval (OffsetCommitter), not
 *   after every batch, which at moderate rates is one OffsetCommit per request;
 * - a consumer that kafkajs will not restart after a crash is replaced by a new one;
 * - the slots are shared fairly between the apps requests are made for (FairSlots, by the
 *   `RPC_APP_ID_HEADER` header): an app holds at most its share, freed slots go to the apps in
 *   turn, and a request over its app's waiting list is answered at once with 429 rate_limited and a
 *   Retry-After instead of being queued (ADR 0206). A waiting request's offset may be committed too.
 * Request order within a partition carries no meaning (requests are independent commands; the
 * services' transactions and locks order what must be ordered).
 */
/**
 * The Kafka options of a service's RPC server: the servers' group of its request topic, short
 * heartbeats (a replica joining or leaving rebalances the group in well under a second), a session of
 * `sessionTimeout` (a killed replica's requests wait at most that long), six partitions at a time.
 */
export function rpcServerKafkaOptions(
  client: Required<KafkaOptions>['options']['client'],
  requestTopic: string,
  sessionTimeout?: number,
): Required<KafkaOptions>['options'] {
  return {
    client,
    consumer: {
      groupId: `${requestTopic}-servers`,
      maxWaitTimeInMs: 500,
      heartbeatInterval: 300,
      ...(sessionTimeout === undefined ? {} : { sessionTimeout }),
      rebalanceTimeout: 5_000,
      allowAutoTopicCreation: false,
    },
    producer: { createPartitioner: KeyHashPartitioner, allowAutoTopicCreation: false },
    subscribe: { fromBeginning: true },
    run: { partitionsConsumedConcurrently: 6 },
    postfixId: '',
  };
}

export class RpcKafkaServer extends ServerKafka {
  private readonly slots: FairSlots<RequestMessage>;
  private readonly handling = new Set<Promise<unknown>>();
  /** Batches waiting for the total of waiting requests to fall below its bound. */
  private readonly waitingForRoom: (() => void)[] = [];
  private closing = false;
  private restarts = 0;
  private assigned: PartitionAssignment = {};
  /** A member of the servers' group now (see InboxConsumer.joined): readiness. */
  member = false;
  private committer: OffsetCommitter | null = null;
  private readonly routes = new Map<string, string>();

  constructor(
    options: Required<KafkaOptions>['options'],
    private readonly limits: RpcServerLimits,
  ) {
    super(options);
    prepareKafkaJs();
    this.slots = new FairSlots(defaultSlotLimits(limits.maxInFlight, limits.slots));
  }

  override async start(callback: () => void): Promise<void> {
    this.closing = false;
    await super.start(callback);
    if (this.producer) coalesceSends(this.producer);
  }

  /**
   * Nest sends a reply from a callback nobody awaits, so a refused send (the broker gone and kafkajs's
   * retries spent) would be an unhandled rejection, which ends the process. The reply is lost
   * instead: the caller times out and retries, and a saved send answers from its saved result.
   */
  override async sendMessage(...args: Parameters<ServerKafka['sendMessage']>): ReturnType<ServerKafka['sendMessage']> {
    try {
      return await super.sendMessage(...args);
    } catch (error) {
      this.limits.onError?.(error);
      return [];
    }
  }

  override async close(): Promise<void> {
    this.closing = true;
    this.assigned = {};
    // Requests under way still get their replies (the producer closes with the server).
    const drained = Promise.allSettled([...this.handling]);
    await Promise.race([drained, new Promise((resolve) => setTimeout(resolve, CLOSE_DRAIN_MS).unref())]);
    await this.committer?.flush();
    await super.close();
  }

  /** The RPC consumer group (for the lag poller). */
  get consumerGroupId(): string {
    return this.groupId;
  }

  /** The request partitions this server was assigned at its last join (for the lag poller). */
  assignment(): PartitionAssignment {
    return this.assigned;
  }

  /**
   * Nest looks a request's handler up by its pattern, which for Kafka is the topic, and first tries
   * `JSON.parse` on it: for a topic name that throws, and the thrown SyntaxError (with its stack) was
   * about 4 % of messaging's CPU under load. The route of a pattern never changes, so it is worked
   * out once per pattern. Patterns are the topics this server subscribed to; the bound only guards
   * against a surprise.
   */
  protected override getRouteFromPattern(pattern: string): string {
    let route = this.routes.get(pattern);
    if (route === undefined) {
      route = super.getRouteFromPattern(pattern);
      if (this.routes.size < MAX_REMEMBERED_ROUTES) this.routes.set(pattern, route);
    }
    return route;
  }

  protected override registerConsumerEventListeners(): void {
    super.registerConsumerEventListeners();
    const consumer = this.consumer;
    if (!consumer) return;
    consumer.on(consumer.events.GROUP_JOIN, (event) => {
      this.restarts = 0;
      this.assigned = event.payload.memberAssignment;
    });
    trackMembership(consumer, (member) => (this.member = member));
    restartWhenCrashed(
      consumer,
      () => this.restartConsumer(consumer),
      (error) => this.limits.onError?.(error),
    );
    this.committer?.clear();
    this.committer = null;
    if (this.limits.commitEveryMs !== undefined) {
      const committer = OffsetCommitter.forConsumer(consumer, this.limits.commitEveryMs, (error) => this.limits.onError?.(error));
      // A batch ends once each of its requests has a slot (see bindEvents): committed before answered, as with kafkajs' own commits.
      consumer.on(consumer.events.END_BATCH_PROCESS, (event) => committer.handled(event.payload.topic, event.payload.partition, event.payload.lastOffset));
      this.committer = committer;
    }
  }

  override async bindEvents(consumer: Consumer): Promise<void> {
    const patterns = [...this.messageHandlers.keys()];
    if (patterns.length > 0) await consumer.subscribe({ ...(this.options.subscribe ?? {}), topics: patterns });
    await consumer.run({
      ...(this.options.run ?? {}),
      ...(this.limits.commitEveryMs !== undefined ? { autoCommit: false } : {}),
      eachBatch: async ({ batch, heartbeat, pause }) => {
        // Returns once every request of the batch has a slot or a place in its app's queue, not when
        // all are answered: the next fetch must not wait for the slowest request of this one (a send
        // waits for its batch's commit), or requests arriving meanwhile would sit in Kafka instead of
        // joining the next batch. Only a full set of queues holds the fetch back.
        for (const message of batch.messages) {
          while (this.slots.full) await new Promise<void>((resolve) => this.waitingForRoom.push(resolve));
          const request = { topic: batch.topic, partition: batch.partition, message, heartbeat, pause };
          const app = appOf(message);
          const offer = this.slots.offer(app, request);
          if (offer === 'run') this.run(app, request);
          else if (offer === 'refuse') this.refuse(message);
        }
        this.limits.onLag?.(batch.topic, batch.partition, Math.max(0, Number(batch.offsetLag())));
      },
    });
  }

  private run(app: string | null, request: RequestMessage): void {
    const handled = this.handleMessage(request)
      .catch((error: unknown) => this.limits.onError?.(error))
      .finally(() => {
        this.handling.delete(handled);
        const next = this.slots.release(app);
        if (next) this.run(next.app, next.item);
        if (!this.slots.full) for (const resume of this.waitingForRoom.splice(0)) resume();
      });
    this.handling.add(handled);
  }

  /** Answers a request over its app's waiting list at once, as the caller's 429, without handling it. */
  private refuse(message: KafkaMessage): void {
    const correlationId = headerText(message.headers?.[KafkaHeaders.CORRELATION_ID]);
    const replyTopic = headerText(message.headers?.[KafkaHeaders.REPLY_TOPIC]);
    // Without a reply address it is an event, which nobody waits on.
    if (!correlationId || !replyTopic) return;
    this.limits.onRefused?.();
    const busy = DomainError.rateLimited(
      `The service is busy with this app's requests; retry after ${BUSY_RETRY_AFTER_SECONDS} second.`,
      BUSY_RETRY_AFTER_SECONDS,
    );
    const reply: RpcReply = { ok: false, error: busy.toRpcError() };
    const replyPartition = headerText(message.headers?.[KafkaHeaders.REPLY_PARTITION]);
    // Nest's own reply path (sendMessage never throws here); no handler ran, so there is no context.
    void this.sendMessage({ id: correlationId, response: reply, isDisposed: true }, replyTopic, replyPartition ?? undefined, correlationId, undefined as never);
  }

  /**
   * One request, from its record to its reply, without Nest's per-record machinery: where Nest's
   * handleMessage copies the record and decodes every header, builds the request packet through
   * its deserializer, wraps the handler's promise in observables (ReplaySubject, catchError,
   * finalize) and publishes from a `process.nextTick`, this reads the three reply headers, decodes
   * the value as Nest's parser does (JSON for an object or array), awaits the handler and hands
   * its answer to Nest's own `sendMessage`. The wire is Nest's, byte for byte (the same topics,
   * headers, serialised value and reply partition; an older client or server on the other side
   * cannot tell), and a handler still gets the `KafkaContext` (here with the record as kafkajs
   * gave it: header values are Buffers). A record without a reply address is an event: Nest's path.
   */
  override async handleMessage(payload: RequestMessage): Promise<void> {
    const { topic, partition, message } = payload;
    const correlationId = headerText(message.headers?.[KafkaHeaders.CORRELATION_ID]);
    const replyTopic = headerText(message.headers?.[KafkaHeaders.REPLY_TOPIC]);
    const handler = this.getHandlerByPattern(topic);
    if (!correlationId || !replyTopic || handler?.isEventHandler) return super.handleMessage(payload);
    const replyPartition = headerText(message.headers?.[KafkaHeaders.REPLY_PARTITION]) ?? undefined;
    const context = new KafkaContext([message, partition, topic, this.consumer!, payload.heartbeat, this.producer!]);
    if (!handler) return this.reply({ id: correlationId, err: NO_MESSAGE_HANDLER, isDisposed: true }, replyTopic, replyPartition, context);
    let answer: { response: unknown } | { err: unknown };
    try {
      // Nest's handler proxy turns a thrown error into an observable that fails with the error to send.
      const result: unknown = await handler(decodeValue(message.value), context);
      answer = { response: isObservable(result) ? await lastValueFrom(result, { defaultValue: undefined }) : result };
    } catch (error) {
      answer = { err: error };
    }
    this.reply({ id: correlationId, ...answer, isDisposed: true }, replyTopic, replyPartition, context);
  }

  /**
   * Sends a reply without holding the request's slot until the broker has it (as Nest's path did);
   * closing still waits for it. sendMessage never rejects (see above).
   */
  private reply(
    message: { id: string; isDisposed: true } & ({ response: unknown } | { err: unknown }),
    replyTopic: string,
    replyPartition: string | undefined,
    context: KafkaContext,
  ): void {
    const sent: Promise<unknown> = this.sendMessage(message, replyTopic, replyPartition, message.id, context).finally(() => this.handling.delete(sent));
    this.handling.add(sent);
  }

  private async restartConsumer(crashed: Consumer): Promise<void> {
    if (this.closing || this.consumer !== crashed || !this.client) return;
    await crashed.disconnect().catch(() => undefined);
    this.restarts += 1;
    await waitBeforeRestart(this.restarts);
    if (this.closing || !this.client) return;
    const consumer = this.client.consumer({ ...this.options.consumer, groupId: this.groupId });
    this.consumer = consumer;
    this.registerConsumerEventListeners();
    try {
      await consumer.connect();
      await this.bindEvents(consumer);
    } catch (error) {
      this.limits.onError?.(error);
      await this.restartConsumer(consumer);
    }
  }
}

/** The app a request is made for, from the header the RPC client adds; null for an internal call. */
function appOf(message: KafkaMessage): string | null {
  return headerText(message.headers?.[RPC_APP_ID_HEADER]) || null;
}
