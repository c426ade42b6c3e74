import { KafkaHeaders } from '@nestjs/microservices';
import type { IHeaders, KafkaMessage, Message } from 'kafkajs';
import type { RpcReply, RpcRequest } from '#platform/contracts';

/**
 * The request/reply wire of `@nestjs/microservices`' Kafka transport, written and read without its
 * per-record machinery (ADR 0203): the RPC client and server speak it directly, so either can face
 * Nest's own ClientKafka or ServerKafka on the other side (a rolling deploy mixes them).
 *
 * A request is a record on `<service>.rpc` whose value is the JSON of an RpcRequest, with the
 * caller's headers plus `kafka_correlationId`, `kafka_replyTopic` and `kafka_replyPartition` (text).
 * A reply is a record on the reply topic, on that partition, whose value is the JSON of the answer,
 * with `kafka_correlationId`, `kafka_nest-is-disposed` (one zero byte: the last reply of the request)
 * and, for a failure outside the answer, `kafka_nest-err`.
 */

/** Nest's answer to a request for a topic no handler serves (its NO_MESSAGE_HANDLER, not exported from the package's index). */
export const NO_MESSAGE_HANDLER = 'There is no matching message handler defined in the remote service.';

/** A Kafka header value as text (the first, when repeated); null when absent. */
export function headerText(value: Buffer | string | (Buffer | string)[] | undefined): string | null {
  const first = Array.isArray(value) ? value[0] : value;
  if (first === undefined) return null;
  return Buffer.isBuffer(first) ? first.toString('utf8') : first;
}

/**
 * A record's value as Nest's KafkaParser decodes it: null stays null, a value led by a zero byte
 * (a schema-registry payload) stays binary, anything else is text, parsed when it is a JSON object
 * or array (and left as text when that fails).
 */
export function decodeValue(value: Buffer | string | null | undefined): unknown {
  if (value === null || value === undefined) return null;
  if (Buffer.isBuffer(value) && value.length > 0 && value[0] === 0) return value;
  const text = value.toString();
  if (text[0] === '{' || text[0] === '[') {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

/** The record of a request, as ClientKafka.send writes it (no key: the partitioner spreads requests). */
export function requestRecord(request: RpcRequest, headers: IHeaders, reply: { correlationId: string; topic: string; partition: string }): Message {
  return {
    value: JSON.stringify(request),
    headers: {
      ...headers,
      [KafkaHeaders.CORRELATION_ID]: reply.correlationId,
      [KafkaHeaders.REPLY_TOPIC]: reply.topic,
      [KafkaHeaders.REPLY_PARTITION]: reply.partition,
    },
  };
}

/** What a reply record says: an answer, or a failure outside it (Nest's error header, or a value that is no answer). */
export type ReadReply = { ok: true; reply: RpcReply<unknown> } | { ok: false; reason: string };

/**
 * Reads a reply record as ClientKafka would deliver it to a caller awaiting its first value: the
 * error header fails the call; otherwise the value is the answer (an RpcReply from our servers).
 */
export function readReply(message: KafkaMessage): ReadReply {
  const err = message.headers?.[KafkaHeaders.NEST_ERR];
  if (err !== undefined) return { ok: false, reason: `the service answered an error: ${headerText(err)}` };
  const value = decodeValue(message.value);
  if (value === null || typeof value !== 'object' || Buffer.isBuffer(value) || typeof (value as { ok?: unknown }).ok !== 'boolean') {
    return { ok: false, reason: 'the reply is not an RPC reply' };
  }
  return { ok: true, reply: value as RpcReply<unknown> };
}
