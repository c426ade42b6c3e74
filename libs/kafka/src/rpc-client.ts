// Over 300 lines because a call is one job end to end: the request record, its timer, the reply
// matched by header and decoded, the trace span and the metrics; split, each piece would serve one caller.
import { randomUUID } from 'node:crypto';
import { context, propagation, ProxyTracerProvider, SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import { ClientKafka, KafkaHeaders } from '@nestjs/microservices';
import type { Consumer, KafkaMessage, Producer } from 'kafkajs';
import {
  kafkaNamespace,
  RPC_APP_ID_HEADER,
  rpcReplyTopic,
  rpcTopic,
  type RpcCaller,
  type RpcOperationName,
  type RpcReply,
  type RpcReplyOf,
  type RpcRequest,
  type RpcRequestOf,
  type RpcService,
  type KafkaUse,
} from '#platform/contracts';
import { DomainError } from '#platform/errors';
import { coalesceSends } from './coalescing-send';
import { OffsetCommitter } from './offset-committer';
import { groupSession, restartWhenCrashed, waitBeforeRestart } from './consumer-restarts';
import { kafkaClientConfig, prepareKafkaJs } from './kafka-client';
import type { KafkaSecurity } from './kafka-security';
import { KeyHashPartitioner } from './key-hash-partitioner';
import { replyPartitionAssigner } from './reply-partition-assigner';
import { openFields, sealFields, type RpcFieldSealer } from './rpc-sealing';
import { headerText, readReply, requestRecord, type ReadReply } from './rpc-wire';

export interface RpcClientOptions {
  brokers: string[];
  /** Unique per process (pod name, or a random id). */
  instanceId: string;
  services: readonly RpcService[];
  timeoutMs: number;
  onError?: (error: unknown) => void;
  /** Each call's duration and outcome: `ok`, `refused` (the service's domain error) or `failed` (timeout, transport). */
  onCall?: (service: RpcService, op: string, seconds: number, outcome: 'ok' | 'refused' | 'failed') => void;
  /** Seals the secret fields of requests and opens those of replies (rpc-sealing.ts); the services' dispatchers share its keys. */
  sealer?: RpcFieldSealer;
  /** The process's TLS and SASL settings (kafkaSecurityFromEnv). */
  kafka?: KafkaSecurity;
  /** Session of the reply consumer's group (default GROUP_SESSION_TIMEOUT_MS, KAFKA_SESSION_TIMEOUT_MS). */
  sessionTimeoutMs?: number;
  /**
   * The partition of each reply topic this replica reads and has its replies sent to (default 0;
   * wrapped to the topic's partitions). Replicas on distinct partitions each read their own replies
   * only; replicas sharing one still get theirs, each skipping the other's.
   */
  replyPartition?: number;
}

/**
 * ClientKafka for its connection (the reply consumer's group, assigner and subscriptions, the
 * producer), with the calls' own bookkeeping instead of Nest's per-record path: a reply record is
 * matched by its correlation id header before anything else of it is read, so the replies of
 * another replica sharing the partition are passed over undecoded, and a caller's is handed to
 * the call waiting for it (`waiting`).
 */
class RepliesClientKafka extends ClientKafka {
  /** The calls waiting for their reply, by correlation id. */
  readonly waiting = new Map<string, (reply: ReadReply) => void>();

  get replyConsumer(): Consumer | null {
    return this._consumer;
  }

  /** The producer, once connected (null while connecting again: a call then fails at once). */
  get requestProducer(): Producer | null {
    return this._producer;
  }

  /** The reply partition requests name (the one this client's group was assigned), or null before the group's first join. */
  replyPartitionOf(replyTopic: string): string | null {
    const partition = this.consumerAssignments[replyTopic];
    return partition === undefined ? null : String(partition);
  }

  /** Reads the reply topics a fetched batch at a time (Nest reads them a record at a time, each awaited). */
  override async bindTopics(): Promise<void> {
    const consumer = this._consumer;
    if (!consumer) throw new Error('No consumer initialized');
    if (this.responsePatterns.length > 0) await consumer.subscribe({ ...(this.options.subscribe ?? {}), topics: this.responsePatterns });
    await consumer.run({
      ...(this.options.run ?? {}),
      eachBatch: async ({ batch }) => {
        for (const message of batch.messages) this.route(message);
      },
    });
  }

  /** Hands a reply to the call waiting for it; another replica's reply, or one that came after its caller gave up, is passed over. */
  private route(message: KafkaMessage): void {
    const id = headerText(message.headers?.[KafkaHeaders.CORRELATION_ID]);
    const answer = id === null ? undefined : this.waiting.get(id);
    if (id === null || answer === undefined) return;
    this.waiting.delete(id);
    answer(readReply(message));
  }
}

/** The tracer spans are recorded with, or null while no tracer provider is registered (trace export off). */
function exportingTracer(): Tracer | null {
  const provider = trace.getTracerProvider();
  if (provider instanceof ProxyTracerProvider) return provider.getDelegateTracer('platform') ?? null;
  return provider.getTracer('platform');
}

/** The request did not get an answer in time; safe to retry (500 internal_error). */
export class RpcTimeoutError extends DomainError {
  constructor(service: string, op: string) {
    super('internal_error', `No answer from ${service} (${op}) in time; retry with the same Idempotency-Key.`);
  }
}

/**
 * Request/reply to the services on @nestjs/microservices' Kafka wire (rpc-wire.ts), safe with many gateway
 * replicas: every replica reads replies in a consumer group of its own, so a rebalance among
 * replicas can never move a reply partition away from the replica that waits for it. The group
 * reads one partition of each reply topic (`replyPartition`), which every request names as its
 * reply partition; a replica keeps only the replies whose correlation id it is waiting for (another
 * replica may share the partition). The group starts at the beginning of the (minutes-long) reply
 * topic so no reply can slip past a fresh replica.
 */
export class RpcClient {
  private readonly client: RepliesClientKafka;
  private committer: OffsetCommitter | null = null;
  private closed = false;

  /** The reply consumer's group, this process's alone. */
  readonly replyGroupId: string;

  constructor(private readonly options: RpcClientOptions) {
    prepareKafkaJs();
    this.replyGroupId = `${kafkaNamespace()}gateway-replies-${options.instanceId}`;
    this.client = new RepliesClientKafka({
      client: kafkaClientConfig(`gateway-${options.instanceId}`, options.brokers, options.kafka),
      // A short session: the group is this replica's alone, but a reply consumer that crashed while the
      // broker was away stays a member until its session lapses, and its replacement cannot join
      // before (with kafkajs's default 30 s, sends failed for 30 s after the broker came back).
      consumer: {
        groupId: this.replyGroupId,
        maxWaitTimeInMs: 500,
        ...groupSession(options.sessionTimeoutMs),
        rebalanceTimeout: 5_000,
        allowAutoTopicCreation: false,
        partitionAssigners: [replyPartitionAssigner(options.replyPartition ?? 0)],
      },
      // Read replies are committed by the committer (see connect), not after every batch.
      run: { autoCommit: false },
      producer: { createPartitioner: KeyHashPartitioner, allowAutoTopicCreation: false },
      subscribe: { fromBeginning: true },
      postfixId: '',
    });
    for (const service of options.services) this.client.subscribeToResponseOf(rpcTopic(service));
  }

  /** What this client does on Kafka, for the app's access map (libs/contracts kafka-access.ts): a call per service. */
  kafkaUses(): KafkaUse[] {
    return this.options.services.map((service) => ({ kind: 'call', service, replyGroup: this.replyGroupId }));
  }

  /**
   * Joins the reply topics. On a fresh broker the services create the topics while this process
   * starts, so a topic not there yet (or without a leader yet) is waited for, up to `startTimeoutMs`.
   */
  async connect(startTimeoutMs = 60_000): Promise<void> {
    this.closed = false;
    const deadline = Date.now() + startTimeoutMs;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.connectOnce();
      } catch (error) {
        await this.client.close().catch(() => undefined);
        if (!isRetriable(error) || this.closed || Date.now() >= deadline) throw error;
        this.options.onError?.(error);
        await waitBeforeRestart(attempt);
      }
    }
  }

  private async connectOnce(): Promise<void> {
    // Requests from concurrent callers go out together (one Produce request per tick).
    coalesceSends(await this.client.connect());
    const consumer = this.client.replyConsumer;
    if (!consumer) return;
    restartWhenCrashed(
      consumer,
      () => this.reconnect(),
      (error) => this.options.onError?.(error),
    );
    // A reply read again after a restart finds no one waiting for it, so its offset can wait a second.
    const committer = OffsetCommitter.forConsumer(consumer, 1000, (error) => this.options.onError?.(error));
    consumer.on(consumer.events.END_BATCH_PROCESS, (event) => committer.handled(event.payload.topic, event.payload.partition, event.payload.lastOffset));
    this.committer = committer;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.committer?.flush();
    await this.client.close();
  }

  /**
   * The reply consumer crashed and kafkajs will not restart it: connect afresh. Calls waiting for a
   * reply keep waiting (the new consumer reads on from the group's committed offsets); calls made
   * while reconnecting fail with 500 and may be retried.
   */
  private async reconnect(): Promise<void> {
    this.committer?.clear();
    await this.client.close().catch(() => undefined);
    for (let attempt = 1; !this.closed; attempt++) {
      await waitBeforeRestart(attempt);
      if (this.closed) return;
      try {
        await this.connectOnce();
        return;
      } catch (error) {
        this.options.onError?.(error);
        await this.client.close().catch(() => undefined);
      }
    }
  }

  /**
   * Calls `op` on a service; resolves with the result or throws the service's DomainError. The
   * operation's request and reply types come from the operation map in libs/contracts
   * (rpc-operations.ts). The call is a client span when the process exports traces (a tracer
   * provider is registered). Otherwise there is no span and no context of its own: the API's no-op
   * span would only carry the caller's span context, which the request carries anyway.
   */
  call<S extends RpcService, O extends RpcOperationName<S>>(
    service: S,
    op: O,
    caller: RpcCaller,
    payload: NoInfer<RpcRequestOf<S, O>>,
    timeoutMs = this.options.timeoutMs,
  ): Promise<RpcReplyOf<S, O>> {
    const tracer = exportingTracer();
    if (!tracer) return this.send<RpcReplyOf<S, O>>(service, op, caller, payload, timeoutMs);
    const attributes = { 'rpc.system': 'kafka', 'rpc.service': service, 'rpc.method': op };
    return tracer.startActiveSpan(`${service} ${op}`, { kind: SpanKind.CLIENT, attributes }, async (span) => {
      try {
        return await this.send<RpcReplyOf<S, O>>(service, op, caller, payload, timeoutMs);
      } catch (error) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: String((error as Error)?.message ?? error) });
        throw error;
      } finally {
        span.end();
      }
    });
  }

  /**
   * The wire's side of `call`: the request record as Nest's ClientKafka writes it (rpc-wire.ts), its
   * reply awaited by correlation id for at most `timeoutMs`; a reply's result is taken for the
   * operation's reply type here.
   */
  private async send<R>(service: RpcService, op: string, caller: RpcCaller, payload: unknown, timeoutMs: number): Promise<R> {
    // The service continues the caller's trace: the current span's W3C context as Kafka headers.
    const headers: Record<string, string> = {};
    propagation.inject(context.active(), headers);
    // The server shares its slots between apps by this header, read before the request is parsed (ADR 0206).
    if (caller.appId) headers[RPC_APP_ID_HEADER] = caller.appId;
    const sealer = this.options.sealer;
    const request: RpcRequest = { op, caller, payload: sealer ? sealFields(payload, 'request', sealer) : payload, deadline: Date.now() + timeoutMs };
    const started = performance.now();
    const done = (outcome: 'ok' | 'refused' | 'failed') => this.options.onCall?.(service, op, (performance.now() - started) / 1000, outcome);
    const answer = await this.exchange(service, request, headers, timeoutMs);
    if (!answer.ok) {
      done('failed');
      if (answer.reason === TIMED_OUT) throw new RpcTimeoutError(service, op);
      throw new DomainError('internal_error', `Call to ${service} (${op}) failed; retry with the same Idempotency-Key.`);
    }
    const reply = answer.reply as RpcReply<R>;
    done(reply.ok ? 'ok' : 'refused');
    if (reply.ok) return (sealer ? openFields(reply.result, 'reply', sealer) : reply.result) as R;
    throw DomainError.fromRpcError(reply.error);
  }

  /** Produces the request and resolves with its reply, or with why there is none (never rejects). */
  private exchange(service: RpcService, request: RpcRequest, headers: Record<string, string>, timeoutMs: number): Promise<ReadReply> {
    const producer = this.client.requestProducer;
    const replyTopic = rpcReplyTopic(service);
    const replyPartition = this.client.replyPartitionOf(replyTopic);
    // Not connected (or connecting again after a crash), or the reply group has not joined yet.
    if (producer === null || replyPartition === null) return Promise.resolve({ ok: false, reason: 'not connected' });
    const correlationId = randomUUID();
    return new Promise<ReadReply>((resolve) => {
      const timer = setTimeout(() => {
        this.client.waiting.delete(correlationId);
        resolve({ ok: false, reason: TIMED_OUT });
      }, timeoutMs);
      this.client.waiting.set(correlationId, (answer) => {
        clearTimeout(timer);
        resolve(answer);
      });
      producer
        .send({ topic: rpcTopic(service), messages: [requestRecord(request, headers, { correlationId, topic: replyTopic, partition: replyPartition })] })
        .catch((error: unknown) => {
          if (!this.client.waiting.delete(correlationId)) return;
          clearTimeout(timer);
          resolve({ ok: false, reason: `the request was not produced: ${String((error as Error)?.message ?? error)}` });
        });
    });
  }
}

/** Why a call has no reply when its time ran out. */
const TIMED_OUT = 'timed out';

/** kafkajs marks errors a later try may not meet (a topic without a leader yet, a broker restarting). */
function isRetriable(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { retriable?: unknown }).retriable === true;
}
