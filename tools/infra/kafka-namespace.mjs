/**
 * Fresh Kafka namespaces for throwaway stacks (tests, benchmarks). Domain topics keep events forever,
 * so a stack that reused its namespace would replay every earlier run into its fresh database. Each
 * run gets `<base><time>.`; topics and consumer groups of earlier runs of that base are deleted.
 */
import kafkajs from 'kafkajs';
import { silenceKafkaJsTimeoutNegativeWarning } from './kafkajs-warnings.mjs';

const { Kafka, logLevel } = kafkajs;

export async function freshKafkaNamespace(base, brokers = (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',')) {
  silenceKafkaJsTimeoutNegativeWarning();
  // Exactly `<base><time>.`: a bare prefix test let the base `platform_test_` delete the live topics
  // of `platform_test_verify_…`, another stack's on the same broker.
  const literal = base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const earlierRun = new RegExp(`^${literal}[0-9a-z]+\\.`);
  const kafka = new Kafka({ clientId: 'namespace-reset', brokers, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  try {
    const old = (await admin.listTopics()).filter((topic) => earlierRun.test(topic));
    if (old.length > 0) await admin.deleteTopics({ topics: old, timeout: 30_000 });
    const groups = (await admin.listGroups()).groups.map((g) => g.groupId).filter((id) => earlierRun.test(id));
    if (groups.length > 0) await admin.deleteGroups(groups).catch(() => undefined);
  } finally {
    await admin.disconnect();
  }
  return `${base}${Date.now().toString(36)}.`;
}
