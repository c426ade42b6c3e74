/* eslint-disable @typescript-eslint/no-require-imports */
type Encoding = { buffer: Buffer };
type RequestFrame = (args: { correlationId: number; clientId: string; request: unknown }) => Promise<Encoding>;
const frame = require('kafkajs/src/protocol/request') as RequestFrame;
const produceV7 = require('kafkajs/src/protocol/requests/produce/v7/request') as (args: unknown) => unknown;
const fetchV11 = require('kafkajs/src/protocol/requests/fetch/v11/request') as (args: unknown) => unknown;
const Encoder = require('kafkajs/src/protocol/encoder') as new () => { writeString(v: string): unknown; buffer: Buffer };

import { growEncoderBuffersFromPool } from './encoder-buffers.patch';
import { writeVarIntsInPlace } from './varint-encoder.patch';

const timestamp = Date.UTC(2026, 10, 22, 12, 0, 0);
const text = (n: number) => Array.from({ length: n }, (_, i) => 'abcdefghijklmnopqrstuvwxyz0123456789{}"é€'[i % 40]).join('');

/** Produce and fetch requests as the services send them: small and large values, keys, headers, many partitions. */
function requests(): { name: string; request: unknown }[] {
  const messages = (n: number, size: number) =>
    Array.from({ length: n }, (_, i) => ({
      key: `app_${i % 7}`,
      value: text(size + i),
      timestamp: timestamp + i,
      headers: { kafka_correlationId: `corr-${i}`, traceparent: `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01`, empty: '' },
    }));
  return [
    {
      name: 'one tiny record',
      request: produceV7({
        acks: -1,
        timeout: 30_000,
        topicData: [{ topic: 'messaging.rpc', partitions: [{ partition: 0, firstSequence: 0, messages: messages(1, 3) }] }],
      }),
    },
    {
      name: 'a batch of reply-sized records',
      request: produceV7({
        acks: -1,
        timeout: 30_000,
        topicData: [{ topic: 'messaging.rpc.reply', partitions: [{ partition: 3, firstSequence: 0, messages: messages(40, 300) }] }],
      }),
    },
    {
      name: 'records past the buffer pool (5 KB, 70 KB) on several topics',
      request: produceV7({
        acks: 1,
        timeout: 5_000,
        topicData: [
          {
            topic: 'message.events',
            partitions: [
              { partition: 1, firstSequence: 0, messages: messages(3, 5_000) },
              { partition: 2, firstSequence: 0, messages: messages(1, 70_000) },
            ],
          },
          { topic: 'chat.outbound', partitions: [{ partition: 0, firstSequence: 0, messages: messages(2, 10) }] },
        ],
      }),
    },
    {
      name: 'a fetch of 36 partitions',
      request: fetchV11({
        replicaId: -1,
        maxWaitTime: 500,
        minBytes: 1,
        maxBytes: 10_485_760,
        topics: ['a.rpc.reply', 'b.rpc.reply', 'c.rpc.reply', 'd.rpc.reply', 'e.rpc.reply', 'f.rpc.reply'].map((topic) => ({
          topic,
          partitions: Array.from({ length: 6 }, (_, partition) => ({
            partition,
            currentLeaderEpoch: -1,
            fetchOffset: '12345',
            logStartOffset: '-1',
            maxBytes: 1_048_576,
          })),
        })),
      }),
    },
  ];
}

async function encodeAll(): Promise<Buffer[]> {
  return Promise.all(requests().map(async ({ request }, i) => (await frame({ correlationId: 100 + i, clientId: 'messaging-rpc-test', request })).buffer));
}

describe('growEncoderBuffersFromPool', () => {
  let before: Buffer[];
  let after: Buffer[];

  beforeAll(async () => {
    writeVarIntsInPlace();
    before = await encodeAll();
    growEncoderBuffersFromPool();
    // Leave garbage in the pool first: unfilled bytes must never reach an encoding.
    for (let i = 0; i < 200; i++) Buffer.allocUnsafe(200).fill(0xee);
    after = await encodeAll();
  });

  it('encodes every request byte for byte as kafkajs does', () => {
    expect(after).toHaveLength(before.length);
    requests().forEach(({ name }, i) => {
      expect({ name, bytes: after[i].toString('hex') }).toEqual({ name, bytes: before[i].toString('hex') });
    });
  });

  it('starts encoders empty and grows them from the shared pool', () => {
    const encoder = new Encoder();
    expect((encoder as unknown as { buf: Buffer }).buf).toHaveLength(0);
    encoder.writeString('messaging.rpc');
    const buf = (encoder as unknown as { buf: Buffer }).buf;
    expect(buf.length).toBeGreaterThanOrEqual(256);
    // A pooled slice shares its ArrayBuffer with other small Buffers.
    expect(buf.buffer.byteLength).toBeGreaterThan(buf.length);
    expect(encoder.buffer.toString('utf8', 2)).toBe('messaging.rpc');
  });
});
