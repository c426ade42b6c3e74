import type { ICustomPartitioner, PartitionerArgs } from 'kafkajs';

const SEED = 0x9747b28c;
const M = 0x5bd1e995;

/**
 * Kafka's murmur2 of a record key (the Java client's `Utils.murmur2`), in 32-bit integer arithmetic.
 * kafkajs computes the same hash with a 64-bit Long object per step, a dozen objects per key; every
 * record a service produces is keyed, and on a loaded stack that was a fifth of what the outbox
 * relay allocated. Only the low 32 bits of each product and xor are ever kept, so `Math.imul` gives
 * the same bits.
 */
export function murmur2(key: Buffer | string): number {
  const data = Buffer.isBuffer(key) ? key : Buffer.from(String(key));
  const length = data.length;
  let h = (SEED ^ length) | 0;
  const whole = length - (length % 4);
  for (let i = 0; i < whole; i += 4) {
    let k = data[i] | (data[i + 1] << 8) | (data[i + 2] << 16) | (data[i + 3] << 24);
    k = Math.imul(k, M);
    k ^= k >>> 24;
    k = Math.imul(k, M);
    h = Math.imul(h, M) ^ k;
  }
  const tail = length - whole;
  if (tail > 0) {
    if (tail === 3) h ^= data[whole + 2] << 16;
    if (tail >= 2) h ^= data[whole + 1] << 8;
    h ^= data[whole];
    h = Math.imul(h, M);
  }
  h ^= h >>> 13;
  h = Math.imul(h, M);
  h ^= h >>> 15;
  return h | 0;
}

/**
 * kafkajs' DefaultPartitioner (the Java client's: a record's own partition if it names one, else
 * murmur2 of its key modulo the partition count, else round robin over partitions with a leader),
 * with the hash above. Same key, same partition as before and as any Java producer, so a topic's
 * per-key order holds across the change and across clients.
 */
export const KeyHashPartitioner: ICustomPartitioner = () => {
  const counters = new Map<string, number>();
  return ({ topic, partitionMetadata, message }: PartitionerArgs) => {
    if (message.partition !== null && message.partition !== undefined) return message.partition;
    if (message.key !== null && message.key !== undefined) return (murmur2(message.key) & 0x7fffffff) % partitionMetadata.length;
    const counter = (counters.get(topic) ?? Math.floor(Math.random() * 0x7fffffff)) + 1;
    counters.set(topic, counter);
    const available = partitionMetadata.filter((p) => p.leader >= 0);
    if (available.length > 0) return available[(counter & 0x7fffffff) % available.length].partitionId;
    return (counter & 0x7fffffff) % partitionMetadata.length;
  };
};
