/**
 * Fresh Kafka namespaces for throwaway stacks (tests, benchmarks). Domain topics keep events forever,
 * so a stack that reused its namespace would replay every earlier run into its fresh database. Each
 * run gets `<base><time>.`; topics and consumer groups of earlier runs under `<base>` are deleted.
 */
import kafkajs from 'kafkajs';
import { silenceKafkaJsTimeoutNegativeWarning } from './kafkajs-warnings.mjs';

const { Kafka, logLevel } = kafkajs;

export async function freshKafkaNamespace(base, brokers = (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',')) {
  silenceKafkaJsTimeoutNegativeWarning();
  const kafka = new Kafka({ clientId: 'namespace-reset', brokers, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  try {
    const old = (await admin.listTopics()).filter((topic) => topic.startsWith(base));
    if (old.length > 0) await admin.deleteTopics({ topics: old, timeout: 30_000 });
    const groups = (await admin.listGroups()).groups.map((g) => g.groupId).filter((id) => id.startsWith(base));
    if (groups.length > 0) await admin.deleteGroups(groups).catch(() => undefined);
  } finally {
    await admin.disconnect();
  }
  return `${base}${Date.now().toString(36)}.`;
}
