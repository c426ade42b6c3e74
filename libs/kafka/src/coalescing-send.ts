import type { Producer, ProducerRecord, RecordMetadata } from 'kafkajs';

/**
 * Makes `producer.send` coalesce: every record sent within one turn of the event loop goes out in a
 * single `sendBatch`, one Produce request per broker instead of one per call. Request/reply traffic
 * is many tiny records from concurrent callers; sent one by one, each costs the broker a request
 * of its own. Records keep their order within a partition. A failure of the batch fails every call
 * in it, as a failed send would have.
 */
export function coalesceSends(producer: Producer): Producer {
  let pending: { record: ProducerRecord; resolve: (metadata: RecordMetadata[]) => void; reject: (error: unknown) => void }[] = [];
  const flush = () => {
    const batch = pending;
    pending = [];
    const { acks, timeout, compression } = batch[0].record;
    producer
      .sendBatch({ acks, timeout, compression, topicMessages: batch.map(({ record }) => ({ topic: record.topic, messages: record.messages })) })
      .then((metadata) => {
        for (const { record, resolve } of batch) resolve(metadata.filter((m) => m.topicName === record.topic));
      })
      .catch((error: unknown) => {
        for (const { reject } of batch) reject(error);
      });
  };
  producer.send = (record: ProducerRecord) =>
    new Promise<RecordMetadata[]>((resolve, reject) => {
      pending.push({ record, resolve, reject });
      if (pending.length === 1) setImmediate(flush);
    });
  return producer;
}
